package io.simdex.router.api;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.core.Ids;
import io.simdex.core.Names;
import io.simdex.fingerprint.BlockTables;
import io.simdex.fingerprint.crawl.CanonicalUrl;
import io.simdex.router.index.ExportCursor;


/** Request checks at the public boundary: each failure names the field and the bad value. */
public final class Validation {
    static final int MAX_BATCH = 10_000;

    private Validation() {
    }

    static String collectionName(String name) {
        String c = name.isEmpty() ? Catalog.DEFAULT : name;
        if (!Names.isValid(c)) {
            throw invalid(Names.problem("collection", c));
        }
        return c;
    }

    static final int MAX_URL_CHARS = 8192;
    static final long MAX_TTL_SECONDS = 10L * 366 * 24 * 3600;

    /** A job or similar name: see {@link Names}. */
    static String name(String field, String name) {
        if (!Names.isValid(name)) {
            throw invalid(Names.problem(field, name));
        }
        return name;
    }

    /**
     * URL {@code index} of a request's {@code urls}, checked; with {@code canonical} its canonical
     * form ({@link CanonicalUrl}), and INVALID_ARGUMENT when it is no absolute URL with a host.
     * The field's name is built only for a failure, not for each of a batch's thousands.
     */
    static String url(int index, String url, boolean canonical) {
        if (url.isEmpty()) {
            throw invalid("urls[" + index + "] is empty");
        }
        if (url.length() > MAX_URL_CHARS) {
            throw invalid("urls[" + index + "] has " + url.length() + " characters, more than " + MAX_URL_CHARS);
        }
        if (!canonical) {
            return url;
        }
        try {
            return CanonicalUrl.of(url);
        } catch (IllegalArgumentException e) {
            throw invalid("urls[" + index + "] " + e.getMessage() + ": " + quoted(url));
        }
    }

    /** A value in a message: quoted, and cut after {@link #QUOTED_CHARS} characters. */
    private static String quoted(String value) {
        return value.length() <= QUOTED_CHARS ? '"' + value + '"' : '"' + value.substring(0, QUOTED_CHARS) + "...\" (" + value.length() + " characters)";
    }

    private static final int QUOTED_CHARS = 200;

    static long ttl(long seconds) {
        if (seconds < 0 || seconds > MAX_TTL_SECONDS) {
            throw invalid("ttl_seconds " + Long.toUnsignedString(seconds) + " outside 1.." + MAX_TTL_SECONDS + " (10 years)");
        }
        return seconds;
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

    /** Matches a probe returns when the request gives no limit. */
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 10_000;
    static final int DEFAULT_PAGE = 1_000;
    /** An Export page's documents at most: as many 256-byte ids take 2.7 MB of the 4 MB a client takes by default. */
    static final int MAX_PAGE = 10_000;

    /** A request's per-probe limit: 0 gives {@link #DEFAULT_LIMIT}. */
    static int limit(int limit) {
        return count("limit", limit, DEFAULT_LIMIT, MAX_LIMIT);
    }

    /** An Export's page size: 0 is {@link #DEFAULT_PAGE}; 1..{@link #MAX_PAGE}. */
    static int pageSize(int size) {
        return count("page_size", size, DEFAULT_PAGE, MAX_PAGE);
    }

    /** A uint32 count field: 0 is {@code byDefault}, else 1..{@code max}. */
    private static int count(String field, int value, int byDefault, int max) {
        if (value == 0) {
            return byDefault;
        }
        if (value < 0 || value > max) {
            throw invalid(field + " " + Integer.toUnsignedString(value) + " outside 0.." + max + " (0: " + byDefault + ")");
        }
        return value;
    }

    /** An Export's cursor for {@code collection}: null for none (the first page). */
    static ExportCursor cursor(String text, String collection) {
        if (text.isEmpty()) {
            return null;
        }
        ExportCursor c;
        try {
            c = ExportCursor.decode(text);
        } catch (IllegalArgumentException e) {
            throw invalid("cursor is not one Export gave (" + e.getMessage() + ")");
        }
        if (!c.collection().equals(collection)) {
            throw invalid("cursor is of an export of collection \"" + c.collection() + "\", not of \"" + collection + "\"");
        }
        return c;
    }

    static int maxDistance(int k) {
        if (k < 0 || k > BlockTables.MAX_DISTANCE) {
            throw invalid("max_distance " + Integer.toUnsignedString(k) + " outside 0.." + BlockTables.MAX_DISTANCE
                    + " (four 16-bit tables find every neighbour only up to distance 3)");
        }
        return k;
    }

    /**
     * Element {@code index} of a list of ids, checked ({@link Ids}); a bad one names the field
     * {@code list[index]member}. The name is built only then, not for each of a batch's thousands.
     */
    static String id(String list, int index, String member, String id) {
        if (Ids.problem("", id) != null) {
            throw invalid(Ids.problem(list + "[" + index + "]" + member, id));
        }
        return id;
    }

    /** A request's {@code ids}, 1..10,000 of them, each checked as {@link #id} checks it. */
    static String[] ids(java.util.List<String> ids) {
        int n = batch("ids", ids.size());
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = id("ids", i, "", ids.get(i));
        }
        return out;
    }

    /** As {@link #text(String, String)} for element {@code index} of a list, named as in {@link #id(String, int, String, String)}. */
    static String text(String list, int index, String member, String text) {
        if (text.isBlank()) {
            throw invalid(list + "[" + index + "]" + member + " is blank");
        }
        return text;
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
}
