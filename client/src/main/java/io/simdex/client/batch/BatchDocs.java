package io.simdex.client.batch;

import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.fingerprint.crawl.CrawlColumns;

import java.util.Arrays;

/**
 * The documents of one batch as columns, one entry per input line in input order: a million
 * documents take about 68 bytes each plus their id and URL bytes, instead of an object graph
 * each. Filled by one thread ({@link BatchReader}); read-only afterwards.
 *
 * <p>Per document: the id; the fingerprint, once known ({@link #hasFingerprint}); whether it
 * came as text, and then its {@link ContentHash} (two longs) and where its line starts in the
 * file ({@link BatchTexts} reads the text again from there); and the optional crawl fields
 * (url, fetch time, score) that the exact rules use, read through {@link CrawlColumns}.
 */
final class BatchDocs implements CrawlColumns {
    private static final int INITIAL = 1 << 10;
    private static final byte HAS_FINGERPRINT = 1;
    private static final byte HAS_TEXT = 2;
    private static final byte HAS_SCORE = 4;
    private static final byte HAS_FETCH_TIME = 8;

    final StringColumn ids = new StringColumn();
    final StringColumn urls = new StringColumn();
    private long[] fingerprints = new long[INITIAL];
    private long[] contentHigh = new long[INITIAL];
    private long[] contentLow = new long[INITIAL];
    private long[] lineOffsets = new long[INITIAL];
    private long[] fetchTimes = new long[INITIAL];
    private double[] scores = new double[INITIAL];
    private byte[] flags = new byte[INITIAL];
    private int size;

    /**
     * Appends a document and returns its position.
     *
     * @param fingerprint its fingerprint, or null when it came as text (set later)
     * @param lineOffset  where its line starts in the file, in bytes
     * @param fetchTime   epoch milliseconds, or null
     * @param score       its score, or null
     */
    int add(String id, Long fingerprint, boolean text, long lineOffset, String url, Long fetchTime, Double score) {
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
        lineOffsets[i] = lineOffset;
        if (fetchTime != null) {
            fetchTimes[i] = fetchTime;
            f |= HAS_FETCH_TIME;
        }
        if (score != null) {
            scores[i] = score;
            f |= HAS_SCORE;
        }
        flags[i] = f;
        return i;
    }

    /** Sets the fingerprint and content hash of text document {@code i}. */
    void setTextResult(int i, long fingerprint, long high, long low) {
        fingerprints[i] = fingerprint;
        contentHigh[i] = high;
        contentLow[i] = low;
        flags[i] |= HAS_FINGERPRINT;
    }

    /** Sets only the content hash of a text document the server could not fingerprint. */
    void setDigest(int i, long high, long low) {
        contentHigh[i] = high;
        contentLow[i] = low;
    }

    @Override
    public int size() {
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

    /** Where document {@code i}'s line starts in the file, in bytes. */
    long lineOffset(int i) {
        return lineOffsets[i];
    }

    /** Whether it came as text, and so has a content hash. */
    @Override
    public boolean hasContent(int i) {
        return (flags[i] & HAS_TEXT) != 0;
    }

    @Override
    public long contentHigh(int i) {
        return contentHigh[i];
    }

    @Override
    public long contentLow(int i) {
        return contentLow[i];
    }

    @Override
    public boolean hasUrl(int i) {
        return urls.isPresent(i);
    }

    /** UTF-8 bytes of a present URL. */
    @Override
    public int urlLength(int i) {
        return urls.byteLength(i);
    }

    /** Code point order of two present URLs. */
    @Override
    public int compareUrls(int a, int b) {
        return urls.compare(a, b);
    }

    /** Epoch milliseconds; {@link Long#MIN_VALUE} (oldest) when absent. */
    @Override
    public long fetchTime(int i) {
        return (flags[i] & HAS_FETCH_TIME) != 0 ? fetchTimes[i] : Long.MIN_VALUE;
    }

    /** The score; 0 when absent. */
    @Override
    public double score(int i) {
        return (flags[i] & HAS_SCORE) != 0 ? scores[i] : 0.0;
    }

    private void grow() {
        int n = flags.length * 2;
        fingerprints = Arrays.copyOf(fingerprints, n);
        contentHigh = Arrays.copyOf(contentHigh, n);
        contentLow = Arrays.copyOf(contentLow, n);
        lineOffsets = Arrays.copyOf(lineOffsets, n);
        fetchTimes = Arrays.copyOf(fetchTimes, n);
        scores = Arrays.copyOf(scores, n);
        flags = Arrays.copyOf(flags, n);
    }
}
