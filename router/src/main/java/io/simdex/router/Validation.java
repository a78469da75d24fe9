package io.simdex.router;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.core.BlockTables;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** Request checks at the public boundary: each failure names the field and the bad value. */
final class Validation {
    static final int MAX_BATCH = 10_000;
    static final int MAX_ID_BYTES = 256;
    private static final Pattern COLLECTION = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private Validation() {
    }

    static String collectionName(String name) {
        String c = name.isEmpty() ? Catalog.DEFAULT : name;
        if (!COLLECTION.matcher(c).matches()) {
            throw invalid("collection '" + c + "' must be 1..64 characters of [A-Za-z0-9_-]");
        }
        return c;
    }

    static int batch(String field, int size) {
        if (size == 0) {
            throw invalid(field + " is empty");
        }
        if (size > MAX_BATCH) {
            throw invalid(field + " has " + size + " entries, more than the limit of " + MAX_BATCH + "; split the batch");
        }
        return size;
    }

    static int maxDistance(int k) {
        if (k < 0 || k > BlockTables.MAX_DISTANCE) {
            throw invalid("max_distance " + Integer.toUnsignedString(k) + " outside 0.." + BlockTables.MAX_DISTANCE
                    + " (four 16-bit tables find every neighbour only up to distance 3)");
        }
        return k;
    }

    static String id(String field, String id) {
        if (id.isEmpty()) {
            throw invalid(field + " is empty");
        }
        if (id.getBytes(StandardCharsets.UTF_8).length > MAX_ID_BYTES) {
            throw invalid(field + " is longer than " + MAX_ID_BYTES + " bytes");
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                throw invalid(field + " '" + printable(id) + "' contains a control character at " + i);
            }
        }
        return id;
    }

    static String text(String field, String text) {
        if (text.isBlank()) {
            throw invalid(field + " is blank");
        }
        return text;
    }

    static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(64).forEach(cp -> b.append(Character.isISOControl(cp) ? String.format("\\u%04x", cp) : new String(Character.toChars(cp))));
        return b.toString();
    }
}
