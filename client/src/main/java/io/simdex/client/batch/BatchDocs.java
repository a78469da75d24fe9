package io.simdex.client.batch;

import java.util.Arrays;

/**
 * The documents of one batch as columns, one entry per input line in input order: a million
 * documents take about 60 bytes each plus their id and URL bytes, instead of an object graph
 * each. Filled by one thread ({@link BatchReader}); read-only afterwards.
 *
 * <p>Per document: the id; the fingerprint, once known ({@link #hasFingerprint}); whether it
 * came as text, and then its {@link ContentDigest} (two longs); and the optional crawl fields
 * (url, fetch time, score) that the exact rules use.
 */
final class BatchDocs {
    private static final int INITIAL = 1 << 10;
    private static final byte HAS_FINGERPRINT = 1;
    private static final byte HAS_TEXT = 2;
    private static final byte HAS_SCORE = 4;
    private static final byte HAS_FETCH_TIME = 8;

    final StringColumn ids = new StringColumn();
    final StringColumn urls = new StringColumn();
    private long[] fingerprints = new long[INITIAL];
    private long[] digestHigh = new long[INITIAL];
    private long[] digestLow = new long[INITIAL];
    private long[] fetchTimes = new long[INITIAL];
    private double[] scores = new double[INITIAL];
    private byte[] flags = new byte[INITIAL];
    private int size;
    private boolean anyScore;

    /**
     * Appends a document and returns its position.
     *
     * @param fingerprint its fingerprint, or null when it came as text (set later)
     * @param fetchTime   epoch milliseconds, or null
     * @param score       its score, or null
     */
    int add(String id, Long fingerprint, boolean text, String url, Long fetchTime, Double score) {
        if (size == flags.length) {
            grow();
        }
        int i = size++;
        ids.add(id);
        urls.add(url);
        byte f = 0;
        if (fingerprint != null) {
            fingerprints[i] = fingerprint;
            f |= HAS_FINGERPRINT;
        }
        if (text) {
            f |= HAS_TEXT;
        }
        if (fetchTime != null) {
            fetchTimes[i] = fetchTime;
            f |= HAS_FETCH_TIME;
        }
        if (score != null) {
            scores[i] = score;
            f |= HAS_SCORE;
            anyScore = true;
        }
        flags[i] = f;
        return i;
    }

    /** Sets the fingerprint and content digest of text document {@code i}. */
    void setTextResult(int i, long fingerprint, long high, long low) {
        fingerprints[i] = fingerprint;
        digestHigh[i] = high;
        digestLow[i] = low;
        flags[i] |= HAS_FINGERPRINT;
    }

    /** Sets only the digest of a text document the server could not fingerprint. */
    void setDigest(int i, long high, long low) {
        digestHigh[i] = high;
        digestLow[i] = low;
    }

    int size() {
        return size;
    }

    String id(int i) {
        return ids.get(i);
    }

    boolean hasFingerprint(int i) {
        return (flags[i] & HAS_FINGERPRINT) != 0;
    }

    long fingerprint(int i) {
        return fingerprints[i];
    }

    boolean hasText(int i) {
        return (flags[i] & HAS_TEXT) != 0;
    }

    long digestHigh(int i) {
        return digestHigh[i];
    }

    long digestLow(int i) {
        return digestLow[i];
    }

    boolean hasUrl(int i) {
        return urls.isPresent(i);
    }

    /** Epoch milliseconds; {@link Long#MIN_VALUE} (oldest) when absent. */
    long fetchTime(int i) {
        return (flags[i] & HAS_FETCH_TIME) != 0 ? fetchTimes[i] : Long.MIN_VALUE;
    }

    /** The score; 0 when absent. */
    double score(int i) {
        return (flags[i] & HAS_SCORE) != 0 ? scores[i] : 0.0;
    }

    /** Whether any document has a URL or a score, i.e. whether priority can differ from input order. */
    boolean anyPriorityField() {
        return anyScore || urls.size() > 0 && anyUrl();
    }

    private boolean anyUrl() {
        for (int i = 0; i < size; i++) {
            if (urls.isPresent(i)) {
                return true;
            }
        }
        return false;
    }

    private void grow() {
        int n = flags.length * 2;
        fingerprints = Arrays.copyOf(fingerprints, n);
        digestHigh = Arrays.copyOf(digestHigh, n);
        digestLow = Arrays.copyOf(digestLow, n);
        fetchTimes = Arrays.copyOf(fetchTimes, n);
        scores = Arrays.copyOf(scores, n);
        flags = Arrays.copyOf(flags, n);
    }
}
