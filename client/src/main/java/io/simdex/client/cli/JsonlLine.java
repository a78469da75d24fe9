package io.simdex.client.cli;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.Strictness;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.simdex.client.Doc;
import io.simdex.client.Fingerprints;
import java.io.IOException;
import java.io.StringReader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One JSONL line: {@code {"id": ..., "fingerprint": ..., "text": ...}}.
 *
 * <p>{@code id} is a string or an integer. {@code fingerprint} is a string in any
 * {@link Fingerprints#parse} form or a JSON number read as unsigned decimal (so a 16-digit
 * number stays decimal). When both {@code fingerprint} and {@code text} are present the
 * fingerprint is used; a null value counts as absent. Other keys are ignored. Parsing is
 * strict JSON: no comments, single quotes or trailing values.
 */
final class JsonlLine {
    private static final TypeAdapter<JsonElement> ELEMENTS = new Gson().getAdapter(JsonElement.class);
    private static final Pattern COLUMN = Pattern.compile("column (\\d+)");

    private JsonlLine() {
    }

    static Doc parse(String line) {
        JsonObject obj = parseObject(line);
        String id = id(obj.get("id"));
        JsonElement fingerprint = obj.get("fingerprint");
        if (fingerprint != null && !fingerprint.isJsonNull()) {
            return Doc.of(id, fingerprint(fingerprint));
        }
        JsonElement text = obj.get("text");
        if (text != null && !text.isJsonNull()) {
            if (!isString(text)) {
                throw new IllegalArgumentException("\"text\" must be a string, was " + text);
            }
            return Doc.ofText(id, text.getAsString());
        }
        throw new IllegalArgumentException("needs \"fingerprint\" or \"text\"");
    }

    private static JsonObject parseObject(String line) {
        JsonElement e = readJson(line);
        if (!e.isJsonObject()) {
            throw new IllegalArgumentException("expected a JSON object, was " + e);
        }
        return e.getAsJsonObject();
    }

    private static JsonElement readJson(String line) {
        JsonReader reader = new JsonReader(new StringReader(line));
        reader.setStrictness(Strictness.STRICT);
        try {
            JsonElement e = ELEMENTS.read(reader);
            if (reader.peek() == JsonToken.END_DOCUMENT) {
                return e;
            }
        } catch (IOException | RuntimeException e) {
            // Gson's messages end in a troubleshooting URL; keep only where the line went wrong.
            Matcher column = COLUMN.matcher(String.valueOf(e.getMessage()));
            String where = column.find() ? " at column " + column.group(1) : "";
            throw new IllegalArgumentException("malformed JSON" + where);
        }
        throw new IllegalArgumentException("unexpected text after the JSON value");
    }

    private static String id(JsonElement id) {
        if (id == null || id.isJsonNull()) {
            throw new IllegalArgumentException("missing \"id\"");
        }
        if (isString(id)) {
            return id.getAsString();
        }
        if (id.isJsonPrimitive() && id.getAsJsonPrimitive().isNumber() && id.getAsString().matches("-?\\d+")) {
            return id.getAsString();
        }
        throw new IllegalArgumentException("\"id\" must be a string or an integer, was " + id);
    }

    private static long fingerprint(JsonElement value) {
        if (isString(value)) {
            return Fingerprints.parse(value.getAsString());
        }
        if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isNumber()) {
            String digits = value.getAsString();
            try {
                return Long.parseUnsignedLong(digits);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "\"fingerprint\" number must be an integer in 0..18446744073709551615, was " + digits);
            }
        }
        throw new IllegalArgumentException("\"fingerprint\" must be a string or a number, was " + value);
    }

    private static boolean isString(JsonElement e) {
        return e.isJsonPrimitive() && ((JsonPrimitive) e).isString();
    }
}
