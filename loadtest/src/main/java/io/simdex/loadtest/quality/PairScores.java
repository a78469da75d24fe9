package io.simdex.loadtest.quality;

import io.simdex.core.text.BitMinHash;
import io.simdex.core.text.MinHashSketch;
import io.simdex.core.text.ShingleJaccard;
import io.simdex.core.text.Sketcher;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.TextSettings;
import io.simdex.core.text.WordCount;
import io.simdex.fingerprint.crawl.ContentHash;

import java.util.List;
import java.util.stream.IntStream;

/**
 * Everything the modes decide a corpus's pairs by, computed once per text: SimHash distances
 * (simdex's default fingerprint, {@link TextSettings#recommended()}, each feature candidate's and
 * the basic one), exact character 3-gram Jaccard, each
 * candidate sketch shape's estimate, the short-text rule's exact Jaccard, and MinHash LSH
 * signatures. A text the fingerprinter rejects (no terms) is at distance {@link #NO_FINGERPRINT}.
 */
final class PairScores {
    static final int NO_FINGERPRINT = Long.SIZE + 1;
    /** The sketch shapes tried: letters and digits only with n = 2, 3, 4, and n = 3 over the whole normalised text. */
    static final List<String> SHAPES = List.of("letters 2-grams", "letters 3-grams", "letters 4-grams", "normalised 3-grams");
    /** Short-text rule of {@code --short-text} collections: texts of at most 200 characters, 3-gram Jaccard. */
    static final int SHORT_CHARS = 200;

    final Corpus corpus;
    final int[] simdex;
    final int[] basic;
    final double[] exact;
    final double[][] estimate;
    /** Exact 3-gram Jaccard of the normalised texts when both are short, else -1. */
    final double[] shortJaccard;
    /** MinHash LSH signatures per text, over letters n-grams of each size in {@link #LSH_SHINGLES}. */
    final int[][][] lsh;
    static final int[] LSH_SHINGLES = {3, 5};
    /** Distances under each {@link FeatureCandidates#all()} pipeline, by candidate then pair. */
    final int[][] features;
    /** Hamming distance of the two texts' {@link BitMinHash} fingerprints. */
    final int[] bitMinHash;
    /** The bits where the two texts' {@link BitMinHash} fingerprints differ (which buckets hold one for the other). */
    final long[] bitMinHashXor;
    /** As {@link #bitMinHash} and {@link #bitMinHashXor} for {@link BitMinHash#partitioned} fingerprints. */
    final int[] partMinHash;
    final long[] partMinHashXor;
    /** Each text's fingerprints: simdex's SimHash, {@link BitMinHash#of}, {@link BitMinHash#partitioned} (in that order). */
    final long[][] textFingerprints;
    /** Letters and digits of each text. */
    final int[] textLetters;
    /** Letters and digits of the pair's first text (stored first), and of its second (probing it). */
    final int[] storedLetters;
    final int[] probeLetters;
    /** Words of the pair's second text ({@link WordCount}): what picks its SimHash radius. */
    final int[] probeWords;

    /** How the MinHash fingerprint's bins order shingles: new collections' order; {@code -Dquality.binOrder=PRODUCTS_64} scores the other. */
    static final BitMinHash.BinOrder BIN_ORDER = BitMinHash.BinOrder.valueOf(System.getProperty("quality.binOrder", "PRODUCTS_32"));

    PairScores(Corpus corpus) {
        this.corpus = corpus;
        List<String> texts = corpus.texts;
        String[] normal = texts.parallelStream().map(ContentHash::normalise).toArray(String[]::new);
        String[] letters = IntStream.range(0, normal.length).parallel().mapToObj(i -> Sketcher.lettersAndDigits(normal[i]).toString())
                .toArray(String[]::new);
        long[] simdexFp = fingerprints(TextFingerprinter.of(TextSettings.recommended()), texts);
        List<FeatureCandidates.Candidate> candidates = FeatureCandidates.all();
        long[][] candidateFps = candidates.stream().map(c -> fingerprints(c.fingerprinter(), texts)).toArray(long[][]::new);
        long[] basicFp = texts.parallelStream().mapToLong(BasicSimHash::of).toArray();
        // Bins ordered as new collections order them.
        long[] bitFp = IntStream.range(0, letters.length).parallel().mapToLong(i -> BitMinHash.of(normal[i], BIN_ORDER)).toArray();
        long[] partFp = IntStream.range(0, letters.length).parallel().mapToLong(i -> BitMinHash.partitioned(normal[i], BIN_ORDER)).toArray();
        long[][] sets = IntStream.range(0, texts.size()).parallel().mapToObj(i -> ShingleSets.of(letters[i], 3)).toArray(long[][]::new);
        MinHashSketch[][] sketches = new MinHashSketch[SHAPES.size()][];
        for (int s = 0; s < SHAPES.size(); s++) {
            int shape = s;
            sketches[s] = IntStream.range(0, texts.size()).parallel().mapToObj(i -> sketch(shape, normal[i])).toArray(MinHashSketch[]::new);
        }
        lsh = new int[LSH_SHINGLES.length][][];
        for (int k = 0; k < LSH_SHINGLES.length; k++) {
            int n = LSH_SHINGLES[k];
            lsh[k] = IntStream.range(0, texts.size()).parallel()
                    .mapToObj(i -> MinHashLsh.signature(n == 3 ? sets[i] : ShingleSets.of(letters[i], n))).toArray(int[][]::new);
        }
        int n = corpus.pairs.size();
        simdex = new int[n];
        basic = new int[n];
        exact = new double[n];
        estimate = new double[SHAPES.size()][n];
        shortJaccard = new double[n];
        features = new int[candidates.size()][n];
        bitMinHash = new int[n];
        bitMinHashXor = new long[n];
        partMinHash = new int[n];
        partMinHashXor = new long[n];
        textFingerprints = new long[][] {simdexFp, bitFp, partFp};
        textLetters = IntStream.range(0, normal.length).map(i -> BitMinHash.letters(normal[i])).toArray();
        storedLetters = new int[n];
        probeLetters = new int[n];
        probeWords = new int[n];
        int[] textWords = IntStream.range(0, normal.length).map(i -> WordCount.of(normal[i])).toArray();
        IntStream.range(0, n).parallel().forEach(p -> {
            Corpus.Pair pair = corpus.pairs.get(p);
            int a = pair.a();
            int b = pair.b();
            simdex[p] = distance(simdexFp, a, b);
            for (int c = 0; c < features.length; c++) {
                features[c][p] = distance(candidateFps[c], a, b);
            }
            basic[p] = Long.bitCount(basicFp[a] ^ basicFp[b]);
            bitMinHash[p] = Long.bitCount(bitFp[a] ^ bitFp[b]);
            bitMinHashXor[p] = bitFp[a] ^ bitFp[b];
            partMinHash[p] = Long.bitCount(partFp[a] ^ partFp[b]);
            partMinHashXor[p] = partFp[a] ^ partFp[b];
            storedLetters[p] = textLetters[a];
            probeLetters[p] = textLetters[b];
            probeWords[p] = textWords[b];
            exact[p] = ShingleSets.jaccard(sets[a], sets[b]);
            for (int s = 0; s < SHAPES.size(); s++) {
                estimate[s][p] = sketches[s][a].estimate(sketches[s][b]);
            }
            boolean bothShort = normal[a].length() <= SHORT_CHARS && normal[b].length() <= SHORT_CHARS;
            shortJaccard[p] = bothShort ? ShingleJaccard.similarity(normal[a], normal[b], 3) : -1;
        });
    }

    /** Each text's fingerprint; 0 for a text without terms (a real fingerprint of 0 is as rare as any other). */
    private static long[] fingerprints(TextFingerprinter fp, List<String> texts) {
        return IntStream.range(0, texts.size()).parallel().mapToLong(i -> {
            try {
                return fp.fingerprint(texts.get(i));
            } catch (IllegalArgumentException noTerms) {
                return 0;
            }
        }).toArray();
    }

    private static int distance(long[] fps, int a, int b) {
        return fps[a] == 0 || fps[b] == 0 ? NO_FINGERPRINT : Long.bitCount(fps[a] ^ fps[b]);
    }

    /**
     * Bits of each bin a shard keeps of a sketch (the server's {@code FingerprintSketch}: the low
     * 5 of {@link Sketcher#DEFAULT}'s 6): candidates are judged at these.
     */
    static final int KEPT_BITS = 5;

    private static MinHashSketch sketch(int shape, String normal) {
        Sketcher d = Sketcher.DEFAULT;
        return switch (shape) {
            case 0 -> new Sketcher(2, d.bins(), KEPT_BITS).sketch(normal);
            case 1 -> new Sketcher(3, d.bins(), KEPT_BITS).sketch(normal);
            case 2 -> new Sketcher(4, d.bins(), KEPT_BITS).sketch(normal);
            default -> MinHashSketch.of(normal, 3, d.bins(), KEPT_BITS);
        };
    }


    /** The fewest differing bits of any of the four 16-bit blocks of {@code xor}. */
    static int leastBlockDistance(long xor) {
        int least = Long.SIZE;
        for (int t = 0; t < 4; t++) {
            least = Math.min(least, Long.bitCount((xor >>> (16 * t)) & 0xFFFF));
        }
        return least;
    }
}
