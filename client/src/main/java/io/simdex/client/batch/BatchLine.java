package io.simdex.client.batch;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.simdex.client.Fingerprints;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * One input line of {@code dedup-batch}: {@code {"id", "text" | "fingerprint", "url",
 * "fetch_time", "score"}}.
 *
 * <p>{@code id}: a string or an integer, 1..256 bytes of UTF-8 without control characters
 * (the server's rule, checked here so that an {@code --insert} run cannot fail halfway).
 * {@code fingerprint}: a string in any {@link Fingerprints#parse} form or an unsigned decimal
 * number; it wins over {@code text} when both are given. {@code fetch_time}: epoch
 * milliseconds, or an ISO-8601 instant, offset date-time or date (midnight UTC).
 * {@code score}: a finite number. Null counts as absent; other keys are ignored; the JSON is
 * read strictly (no comments, no trailing values).
 *
 * @param fingerprint null when the document is text
 * @param text        null when it has a fingerprint
 */
record BatchLine(String id, Long fingerprint, String text, String url, Long fetchTime, Double score) {
    /** This line with another URL. */
    BatchLine withUrl(String other) {
        return new BatchLine(id, fingerprint, text, other, fetchTime, score);
    }

    private static final int MAX_ID_BYTES = 256;

    /** @throws IllegalArgumentException saying what is wrong with the line */
    static BatchLine parse(String line) {
        try (JsonReader in = new JsonReader(new StringReader(line))) {
            in.setStrictness(Strictness.STRICT);
            Fields f = new Fields();
            in.beginObject();
            while (in.hasNext()) {
                f.read(in.nextName(), in);
            }
            in.endObject();
            if (in.peek() != JsonToken.END_DOCUMENT) {
                throw new IllegalArgumentException("unexpected text after the JSON object");
            }
            return f.toLine();
        } catch (IOException | IllegalStateException e) {
            throw new IllegalArgumentException("malformed JSON: " + firstSentence(e.getMessage()));
        }
    }

    private static String firstSentence(String message) {
        // Gson's messages end in a troubleshooting URL; keep what went wrong and where.
        int see = message == null ? -1 : message.indexOf("\nSee ");
        return see < 0 ? String.valueOf(message) : message.substring(0, see);
    }

    /** The fields as they are read, before the line is validated. */
    private static final class Fields {
        String id;
        Long fingerprint;
        String text;
        String url;
        Long fetchTime;
        Double score;

        void read(String name, JsonReader in) throws IOException {
            if (in.peek() == JsonToken.NULL) {
                in.nextNull();
                return;
            }
            switch (name) {
                case "id" -> id = idValue(in);
                case "fingerprint" -> fingerprint = fingerprintValue(in);
                case "text" -> text = string(in, "text");
                case "url" -> url = string(in, "url");
                case "fetch_time" -> fetchTime = fetchTimeValue(in);
                case "score" -> score = scoreValue(in);
                default -> in.skipValue();
            }
        }

        BatchLine toLine() {
            if (id == null) {
                throw new IllegalArgumentException("missing \"id\"");
            }
            checkId(id);
            if (fingerprint == null && (text == null || text.isBlank())) {
                throw new IllegalArgumentException("needs \"fingerprint\" or a non-blank \"text\"");
            }
            if (url != null && url.isEmpty()) {
                url = null;
            }
            return new BatchLine(id, fingerprint, fingerprint == null ? text : null, url, fetchTime, score);
        }
    }

    private static String idValue(JsonReader in) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.STRING) {
            return in.nextString();
        }
        String digits = t == JsonToken.NUMBER ? in.nextString() : null;
        if (digits == null || !digits.matches("-?\\d+")) {
            throw new IllegalArgumentException("\"id\" must be a string or an integer, was " + (digits == null ? t : digits));
        }
        return digits;
    }

    private static void checkId(String id) {
        if (id.isEmpty() || id.getBytes(StandardCharsets.UTF_8).length > MAX_ID_BYTES) {
            throw new IllegalArgumentException("\"id\" must be 1.." + MAX_ID_BYTES + " bytes of UTF-8, was \""
                    + (id.length() > 40 ? id.substring(0, 40) + "..." : id) + "\"");
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                throw new IllegalArgumentException("\"id\" has a control character at " + i);
            }
        }
    }

    private static Long fingerprintValue(JsonReader in) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.STRING) {
            return Fingerprints.parse(in.nextString());
        }
        if (t == JsonToken.NUMBER) {
            String digits = in.nextString();
            try {
                return Long.parseUnsignedLong(digits);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "\"fingerprint\" number must be an integer in 0..18446744073709551615, was " + digits);
            }
        }
        throw new IllegalArgumentException("\"fingerprint\" must be a string or a number, was " + t);
    }

    private static String string(JsonReader in, String name) throws IOException {
        if (in.peek() != JsonToken.STRING) {
            throw new IllegalArgumentException("\"" + name + "\" must be a string, was " + in.peek());
        }
        return in.nextString();
    }

    private static Long fetchTimeValue(JsonReader in) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.NUMBER) {
            String digits = in.nextString();
            try {
                return Long.parseLong(digits);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"fetch_time\" number must be integer epoch milliseconds, was " + digits);
            }
        }
        if (t != JsonToken.STRING) {
            throw new IllegalArgumentException("\"fetch_time\" must be a number or an ISO-8601 string, was " + t);
        }
        String s = in.nextString();
        try {
            if (s.length() == "2011-07-01".length()) {
                return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            }
            return s.endsWith("Z") ? Instant.parse(s).toEpochMilli() : OffsetDateTime.parse(s).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("\"fetch_time\" is not an ISO-8601 instant or date: \"" + s + "\"");
        }
    }

    private static Double scoreValue(JsonReader in) throws IOException {
        if (in.peek() != JsonToken.NUMBER) {
            throw new IllegalArgumentException("\"score\" must be a number, was " + in.peek());
        }
        double v = in.nextDouble();
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException("\"score\" must be finite, was " + v);
        }
        return v;
    }
}
