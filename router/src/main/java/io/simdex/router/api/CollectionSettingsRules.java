package io.simdex.router.api;

import com.google.protobuf.UInt32Value;
import io.simdex.core.text.BitMinHash;
import io.simdex.core.text.HanTokens;
import io.simdex.core.text.IdfTable;
import io.simdex.core.text.ShortTextFingerprint;
import io.simdex.core.text.Sketcher;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.TextSettings;
import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.ShortFingerprintBlocks;
import io.simdex.proto.v1.ShortFingerprintOrder;
import io.simdex.proto.v1.ShortFingerprintSettings;
import io.simdex.proto.v1.ShortTextSettings;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.proto.v1.StopWords;
import io.simdex.proto.v1.Tokenization;
import io.simdex.proto.v1.UpdateCollectionRequest;
import io.simdex.proto.v1.Weighting;
import io.simdex.router.index.ShortFingerprintRule;
import io.simdex.router.index.ShortTextRule;
import io.simdex.router.index.SketchRule;

import java.time.Duration;
import java.util.Map;

/** Validates collection settings, fills in their defaults, and turns them into the objects they configure. */
public final class CollectionSettingsRules {
    static final int DEFAULT_NGRAM = 3;
    static final long MIN_DEFAULT_GENERATION_SECONDS = 60;
    /** Generations a retention window may span: every request and sweep walks them, and each may hold a store per shard. */
    static final long MAX_GENERATIONS = 10_000;
    /** Longest retention: 100 years, far from where seconds since the epoch minus retention could overflow. */
    static final long MAX_RETENTION_SECONDS = 100L * 366 * 24 * 3600;
    /**
     * Whether a collection created without sketch settings verifies texts by sketches: yes, with
     * candidates up to {@link #DEFAULT_SKETCH_CANDIDATE_DISTANCE}. On loadtest/quality's held-out
     * half, with short texts by MinHash ({@link #SHORT_FINGERPRINT_BY_DEFAULT}), long texts score
     * F1 0.985 (English) and 0.986 (Chinese), precision 1.000, against 0.950 and 0.944 at
     * distance 3 without sketches (its RESULTS.md). A sketch takes 57 bytes of its shard's store
     * (38 packed, keyed by the fingerprint), within the budget of 64. The threshold was chosen on
     * the tuning half.
     */
    static final boolean SKETCH_BY_DEFAULT = true;
    /**
     * Candidates a sketch judges when the settings name no distance (see {@link #SKETCH_BY_DEFAULT}):
     * the widest radius whose Dedup stays within 2x the CPU of Dedup without sketches on
     * 300-word texts at 20,000 stored (loadtest's {@code dedup-cpu --words 300 --modes
     * off,on,on-k6}, three runs: 1.71-1.75x at 5, where a probe reads 36 buckets, and 2.03-2.11x
     * at 6, 52 buckets and 2.5 times the sketch reads; the ratio grows with a crowded store,
     * 8.7-10.3x at 2M when 5 read 68 buckets: its figures in loadtest/quality/README.md). At 6,
     * long texts' F1 would be 0.992 and 0.993 instead of 0.985 and 0.986; collections created
     * with 6 or 7 keep it.
     */
    static final int DEFAULT_SKETCH_CANDIDATE_DISTANCE = 5;
    static final double DEFAULT_SKETCH_MIN_JACCARD = 0.4;
    /**
     * SimHash candidates of a new collection's texts of at most {@link #DEFAULT_WIDE_MAX_WORDS}
     * words: to 7, which costs a probe 68 buckets where 5 reads 36
     * ({@link io.simdex.fingerprint.BlockTables#neighbourTables}), and the sketches read for the
     * extra candidates. On loadtest/quality's tuning half, English texts of
     * 190-440 letters (35-80 words) went from F1 0.931 to 0.955, precision unchanged (its
     * RESULTS.md: "k <= 7 up to N words" rows, the wide-radius grid).
     */
    static final int DEFAULT_WIDE_CANDIDATE_DISTANCE = 7;
    /**
     * The most words a text may have to take {@link #DEFAULT_WIDE_CANDIDATE_DISTANCE} in a new
     * collection. Counted in words, not letters, since a Han character is a feature of its own: a
     * 300-word Chinese text of dedup-cpu's corpus has about 600 characters, and its candidates to
     * 7 took 52 sketch reads a probe instead of 10.6 (Dedup 2.6x --no-sketch's CPU instead of
     * 1.8x). Longer limits find more on the tuning half (Chinese long texts up to their whole
     * length); the cost bounds it.
     */
    static final int DEFAULT_WIDE_MAX_WORDS = 150;
    /** Largest wide_max_words accepted. */
    static final int MAX_WIDE_WORDS = 100_000;
    /**
     * Whether a new collection with sketches fingerprints its short texts by 1-bit MinHash
     * ({@link ShortTextFingerprint}): yes, up to 300 letters, candidates to 12. On
     * loadtest/quality's held-out half that raises F1 on short texts from 0.688 to 0.960
     * (English) and 0.654 to 0.890 (Chinese), precision 1.000, and leaves long
     * texts as they were (its RESULTS.md, "b-bit MinHash fingerprint up to 300 letters" rows).
     */
    static final boolean SHORT_FINGERPRINT_BY_DEFAULT = true;
    /**
     * Candidates a short text's MinHash probe takes: those the probed buckets hold within 12 bits
     * (all within 7, and beyond 7 those with a block within one bit; BlockTables.MAX_CANDIDATE_DISTANCE).
     * Unrelated texts are 32 bits apart, near-duplicates 32 (1 - J): at 12 rather than 7, short
     * texts' F1 on loadtest/quality's held-out half went from 0.892 to 0.960 (English) and 0.825
     * to 0.890 (Chinese), precision 1.000, for the same buckets probed.
     */
    static final int DEFAULT_SHORT_FINGERPRINT_DISTANCE = 12;
    /**
     * The sketch estimate a MinHash probe's candidate needs in a new collection. A candidate
     * within 12 bits of a 1-bit MinHash fingerprint already shares most of its shingles; SimHash
     * candidates keep {@link #DEFAULT_SKETCH_MIN_JACCARD}. The least threshold at which chance
     * agreements of the sketch's bins pass at most one in a million of a 50M-document table's
     * random candidates, and the best of those on loadtest/quality's tuning half: held out, short
     * Chinese texts' F1 went from 0.857 (at 0.4) to 0.890, the other classes within 0.001 (its
     * RESULTS.md, "MinHash candidates" rows).
     */
    static final double DEFAULT_SHORT_FINGERPRINT_MIN_JACCARD = 0.2;
    /**
     * Short-text fingerprints of a new collection: every block over the whole text. Partitioned
     * blocks ({@link io.simdex.core.text.BitMinHash#partitioned}) find more on loadtest/quality's
     * held-out half (short F1 0.897 -> 0.906 Chinese, 0.958 -> 0.965 English, the "partitioned"
     * mode) at the same bytes and buckets per probe, but a group of few shingles makes a block of
     * little entropy: unrelated English sentences share a probed bucket 21.9 times as often as
     * random fingerprints, against 10.6 with whole-text blocks (Chinese posts 3.1 against 1.5;
     * RESULTS.md, "Bucket crowding"), and a probe scans that many more entries. Collections
     * choose them.
     */
    static final ShortFingerprintBlocks DEFAULT_SHORT_FINGERPRINT_BLOCKS = ShortFingerprintBlocks.WHOLE_TEXT_BLOCKS;
    /**
     * Bin order of a new collection's short-text fingerprints: 32-bit products, which vectors of
     * 256 bits multiply eight bins at a time, where 64-bit ones run a bin at a time without
     * 512-bit vectors; the same quality on loadtest/quality's held-out half (its RESULTS.md).
     * Collections stored without the field keep 64-bit products.
     */
    static final ShortFingerprintOrder DEFAULT_SHORT_FINGERPRINT_ORDER = ShortFingerprintOrder.PRODUCTS_32;
    /**
     * Han runs of a new collection: one token per character, which an edit cannot re-cut. On the
     * tuning half of loadtest/quality's corpus, F1 at distance 3 with stop words dropped went from
     * 0.907 to 0.938 on long Chinese texts and 0.511 to 0.559 on short ones (its RESULTS.md);
     * collections stored without the field keep HanLP's words.
     */
    static final io.simdex.proto.v1.HanTokens DEFAULT_HAN_TOKENS = io.simdex.proto.v1.HanTokens.HAN_CHARACTERS;
    /**
     * Stop words of a new collection: kept. Their weight steadies long texts' fingerprints (en
     * long F1 0.937 vs 0.909 on the same tuning half; with Han characters too, the mean over the
     * six corpora went from 0.748 to 0.790, none worse); collections stored without the field
     * drop them unless keep_stop_words said otherwise.
     */
    static final StopWords DEFAULT_STOP_WORDS = StopWords.KEEP_STOP_WORDS;

    private CollectionSettingsRules() {
    }

    /** The settings with every default made explicit; throws INVALID_ARGUMENT naming a bad field. */
    public static CollectionSettings complete(CollectionSettings s) {
        CollectionSettings.Builder b = s.toBuilder();
        if (!s.hasMaxDistance()) {
            b.setMaxDistance(UInt32Value.of(BlockTables.MAX_DISTANCE));
        } else if (s.getMaxDistance().getValue() > BlockTables.MAX_DISTANCE) {
            throw Validation.invalid("settings.max_distance " + Integer.toUnsignedString(s.getMaxDistance().getValue()) + " outside 0..3");
        }
        if (s.getTokenization() == Tokenization.UNRECOGNIZED || s.getWeighting() == Weighting.UNRECOGNIZED) {
            throw Validation.invalid("settings has an unknown tokenization or weighting value");
        }
        b.setTokenization(s.getTokenization() == Tokenization.TOKENIZATION_UNSPECIFIED ? Tokenization.WORDS : s.getTokenization());
        completeFeatures(s, b);
        b.setWeighting(s.getWeighting() == Weighting.WEIGHTING_UNSPECIFIED ? Weighting.TF : s.getWeighting());
        if (s.getNgramSize() > 16) {
            throw Validation.invalid("settings.ngram_size " + Integer.toUnsignedString(s.getNgramSize()) + " outside 1..16");
        }
        b.setNgramSize(s.getNgramSize() == 0 ? DEFAULT_NGRAM : s.getNgramSize());
        if (!s.getIdfMap().isEmpty() && b.getWeighting() != Weighting.TF_IDF) {
            throw Validation.invalid("settings.idf is given but weighting is " + b.getWeighting() + ", not TF_IDF");
        }
        if (s.getBuiltInIdf() && b.getWeighting() != Weighting.TF_IDF) {
            throw Validation.invalid("settings.built_in_idf needs weighting TF_IDF, not " + b.getWeighting());
        }
        if (s.getBuiltInIdf() && (b.getTokenization() != Tokenization.WORDS || b.getHanTokens() != io.simdex.proto.v1.HanTokens.HAN_CHARACTERS)) {
            throw Validation.invalid("settings.built_in_idf needs tokenization WORDS and han_tokens HAN_CHARACTERS (the built-in"
                    + " table's features), not " + b.getTokenization() + " and " + b.getHanTokens());
        }
        for (Map.Entry<String, Double> e : s.getIdfMap().entrySet()) {
            if (!(e.getValue() >= 0) || e.getValue().isInfinite()) {
                throw Validation.invalid("settings.idf['" + e.getKey() + "'] = " + e.getValue() + " is not a finite number >= 0");
            }
        }
        if (s.hasShortText() && s.getShortText().getEnabled()) {
            b.setShortText(completeShortText(s.getShortText()));
        } else if (s.hasShortText()) {
            b.clearShortText();
        }
        b.setSketch(completeSketch(s));
        completeShortFingerprint(s, b);
        long retention = s.getRetentionSeconds();
        long generation = s.getGenerationSeconds();
        if (retention < 0 || generation < 0) {
            throw Validation.invalid("settings.retention_seconds and generation_seconds must not be negative");
        }
        if (retention == 0 && generation != 0) {
            throw Validation.invalid("settings.generation_seconds " + generation + " needs retention_seconds");
        }
        if (retention > 0) {
            long g = generation == 0 ? Math.max(MIN_DEFAULT_GENERATION_SECONDS, retention / 8) : generation;
            if (g > retention) {
                throw Validation.invalid("settings.generation_seconds " + g + " is longer than retention_seconds " + retention);
            }
            String problem = retentionProblem(retention, g);
            if (problem != null) {
                throw Validation.invalid(problem);
            }
            b.setGenerationSeconds(g);
        }
        return b.build();
    }

    /**
     * Complete settings {@code current} with the changes {@code req} gives (UpdateCollection):
     * only what decides how long documents are kept and how they are judged, never what is
     * stored. Throws INVALID_ARGUMENT naming the field for a bad value, or for a change that would
     * hide stored documents: retention turned on (everything is in generation 0, which a window
     * leaves at once) or off (the window's generations would no longer be read).
     */
    static CollectionSettings updated(CollectionSettings current, UpdateCollectionRequest req) {
        if (!req.hasMaxDistance() && !req.hasRetentionSeconds() && !req.hasSketchMinJaccard() && !req.hasShortTextMinJaccard()
                && !req.hasShortFingerprintMinJaccard()) {
            throw Validation.invalid("nothing to change: give max_distance, retention_seconds, sketch_min_jaccard,"
                    + " short_text_min_jaccard or short_fingerprint_min_jaccard");
        }
        CollectionSettings.Builder b = current.toBuilder();
        if (req.hasMaxDistance()) {
            int k = req.getMaxDistance().getValue();
            if (Integer.compareUnsigned(k, BlockTables.MAX_DISTANCE) > 0) {
                throw Validation.invalid("max_distance " + Integer.toUnsignedString(k) + " outside 0.." + BlockTables.MAX_DISTANCE);
            }
            b.setMaxDistance(UInt32Value.of(k));
        }
        if (req.hasRetentionSeconds()) {
            b.setRetentionSeconds(updatedRetention(current, req.getRetentionSeconds().getValue()));
        }
        if (req.hasSketchMinJaccard()) {
            if (sketchRule(current) == null) {
                throw Validation.invalid("sketch_min_jaccard: the collection verifies no sketches (created with sketch off)");
            }
            b.getSketchBuilder().setMinJaccard(similarity("sketch_min_jaccard", req.getSketchMinJaccard().getValue()));
        }
        if (req.hasShortTextMinJaccard()) {
            if (shortTextRule(current) == null) {
                throw Validation.invalid("short_text_min_jaccard: the collection verifies no short texts (created without short_text)");
            }
            b.getShortTextBuilder().setMinJaccard(similarity("short_text_min_jaccard", req.getShortTextMinJaccard().getValue()));
        }
        if (req.hasShortFingerprintMinJaccard()) {
            if (shortFingerprintRule(current) == null) {
                throw Validation.invalid("short_fingerprint_min_jaccard: the collection gives short texts no MinHash fingerprint"
                        + " (created without short_fingerprint)");
            }
            b.getShortFingerprintBuilder().setMinJaccard(
                    similarity("short_fingerprint_min_jaccard", req.getShortFingerprintMinJaccard().getValue()));
        }
        return b.build();
    }

    /** What an update changed, for the log: {@code retention_seconds 172800 -> 259200, sketch.min_jaccard 0.4 -> 0.5}. */
    static String changes(CollectionSettings before, CollectionSettings after) {
        StringBuilder out = new StringBuilder();
        change(out, "max_distance", before.getMaxDistance().getValue(), after.getMaxDistance().getValue());
        change(out, "retention_seconds", before.getRetentionSeconds(), after.getRetentionSeconds());
        change(out, "sketch.min_jaccard", before.getSketch().getMinJaccard(), after.getSketch().getMinJaccard());
        change(out, "short_text.min_jaccard", before.getShortText().getMinJaccard(), after.getShortText().getMinJaccard());
        change(out, "short_fingerprint.min_jaccard", before.getShortFingerprint().getMinJaccard(), after.getShortFingerprint().getMinJaccard());
        return out.toString();
    }

    private static void change(StringBuilder out, String field, Object before, Object after) {
        if (!before.equals(after)) {
            out.append(out.length() == 0 ? "" : ", ").append(field).append(' ').append(before).append(" -> ").append(after);
        }
    }

    /** A new retention window for {@code current}'s generations, which stay as they were created. */
    private static long updatedRetention(CollectionSettings current, long retention) {
        long generation = current.getGenerationSeconds();
        if (current.getRetentionSeconds() == 0) {
            throw Validation.invalid("retention_seconds: the collection keeps its documents forever (created without"
                    + " retention_seconds), all in one generation that a window would drop at once; create a collection with"
                    + " retention_seconds instead");
        }
        if (retention == 0) {
            throw Validation.invalid("retention_seconds 0 (forever): the collection keeps its documents in generations of "
                    + generation + " s, which only a window reads; give a window of at least " + generation + " s");
        }
        if (retention < 0 || retention > MAX_RETENTION_SECONDS) {
            throw Validation.invalid("retention_seconds " + Long.toUnsignedString(retention) + " outside 1.." + MAX_RETENTION_SECONDS
                    + " (100 years)");
        }
        if (retention < generation) {
            throw Validation.invalid("retention_seconds " + retention + " is shorter than the collection's generations of "
                    + generation + " s");
        }
        long generations = (retention + generation - 1) / generation;
        if (generations > MAX_GENERATIONS) {
            throw Validation.invalid("retention_seconds " + retention + " in the collection's generations of " + generation
                    + " s makes " + generations + " generations, more than " + MAX_GENERATIONS + "; at most "
                    + generation * MAX_GENERATIONS + " s");
        }
        return retention;
    }

    private static double similarity(String field, double x) {
        if (!(x > 0 && x <= 1)) {
            throw Validation.invalid(field + " " + x + " outside (0, 1]");
        }
        return x;
    }

    /**
     * Han tokens and stop words made explicit, so that a collection keeps them when the defaults
     * change: {@link #fingerprinter} reads an unset field as the pipeline of the settings stored
     * before it existed.
     */
    private static void completeFeatures(CollectionSettings s, CollectionSettings.Builder b) {
        if (s.getHanTokens() == io.simdex.proto.v1.HanTokens.UNRECOGNIZED || s.getStopWords() == StopWords.UNRECOGNIZED) {
            throw Validation.invalid("settings has an unknown han_tokens or stop_words value");
        }
        if (s.getKeepStopWords() && s.getStopWords() == StopWords.DROP_STOP_WORDS) {
            throw Validation.invalid("settings.keep_stop_words is true but stop_words is DROP_STOP_WORDS");
        }
        b.setHanTokens(s.getHanTokens() == io.simdex.proto.v1.HanTokens.HAN_TOKENS_UNSPECIFIED ? DEFAULT_HAN_TOKENS : s.getHanTokens());
        b.setStopWords(s.getKeepStopWords() ? StopWords.KEEP_STOP_WORDS
                : s.getStopWords() == StopWords.STOP_WORDS_UNSPECIFIED ? DEFAULT_STOP_WORDS : s.getStopWords());
    }

    /**
     * Whether {@code existing} is what a create with {@code requested} (as sent, not completed)
     * asks for: its completed settings, except that a field the request leaves unset matches a
     * collection stored before the field existed, which keeps its old pipeline, and an unset
     * sketch matches a collection stored with sketches off (created before they were the default),
     * and an unset sketch candidate distance matches the one the collection was stored with (its
     * default has changed).
     */
    static boolean sameSettings(CollectionSettings existing, CollectionSettings requested) {
        CollectionSettings.Builder wanted = complete(requested).toBuilder();
        if (existing.getHanTokens() == io.simdex.proto.v1.HanTokens.HAN_TOKENS_UNSPECIFIED
                && requested.getHanTokens() == io.simdex.proto.v1.HanTokens.HAN_TOKENS_UNSPECIFIED) {
            wanted.clearHanTokens();
        }
        if (existing.getStopWords() == StopWords.STOP_WORDS_UNSPECIFIED && requested.getStopWords() == StopWords.STOP_WORDS_UNSPECIFIED) {
            wanted.clearStopWords();
        }
        if (!requested.hasSketch() && !existing.getSketch().getEnabled()) {
            wanted.setSketch(existing.getSketch());
        }
        if (existing.getSketch().getEnabled() && wanted.getSketch().getEnabled() && requested.getSketch().getCandidateDistance() == 0) {
            wanted.getSketchBuilder().setCandidateDistance(existing.getSketch().getCandidateDistance());
        }
        // Stored before the wide radius existed: a request that leaves it unset asks for what that collection does.
        if (existing.getSketch().getEnabled() && wanted.getSketch().getEnabled() && existing.getSketch().getWideMaxWords() == 0
                && requested.getSketch().getWideCandidateDistance() == 0 && requested.getSketch().getWideMaxWords() == 0) {
            wanted.getSketchBuilder().clearWideCandidateDistance().clearWideMaxWords();
        }
        if (!requested.hasShortFingerprint() && !existing.hasShortFingerprint()) {
            wanted.clearShortFingerprint();
        }
        if (existing.getShortFingerprint().getEnabled() && existing.getShortFingerprint().getMinJaccard() == 0
                && requested.getShortFingerprint().getMinJaccard() == 0) {
            wanted.getShortFingerprintBuilder().clearMinJaccard();
        }
        if (existing.getShortFingerprint().getEnabled()
                && existing.getShortFingerprint().getBlocks() == ShortFingerprintBlocks.SHORT_FINGERPRINT_BLOCKS_UNSPECIFIED
                && requested.getShortFingerprint().getBlocks() == ShortFingerprintBlocks.SHORT_FINGERPRINT_BLOCKS_UNSPECIFIED) {
            wanted.getShortFingerprintBuilder().clearBlocks();
        }
        if (existing.getShortFingerprint().getEnabled()
                && existing.getShortFingerprint().getOrder() == ShortFingerprintOrder.SHORT_FINGERPRINT_ORDER_UNSPECIFIED
                && requested.getShortFingerprint().getOrder() == ShortFingerprintOrder.SHORT_FINGERPRINT_ORDER_UNSPECIFIED) {
            wanted.getShortFingerprintBuilder().clearOrder();
        }
        return existing.equals(wanted.build());
    }

    /**
     * Why complete settings' retention cannot be served, or null if it can. Cheap enough for every
     * request: a catalog entry stored before these limits existed is caught here, not by an
     * OutOfMemoryError building its window.
     */
    static String retentionProblem(CollectionSettings s) {
        return s.getRetentionSeconds() == 0 ? null : retentionProblem(s.getRetentionSeconds(), s.getGenerationSeconds());
    }

    private static String retentionProblem(long retention, long generation) {
        if (retention < 0 || retention > MAX_RETENTION_SECONDS) {
            return "settings.retention_seconds " + retention + " outside 0.." + MAX_RETENTION_SECONDS + " (100 years)";
        }
        if (generation <= 0) {
            return "settings.generation_seconds " + generation + " is not positive";
        }
        long generations = (retention + generation - 1) / generation;
        if (generations > MAX_GENERATIONS) {
            return "settings.retention_seconds " + retention + " in generations of " + generation + " s makes " + generations
                    + " generations, more than " + MAX_GENERATIONS + "; give generation_seconds >= "
                    + (retention + MAX_GENERATIONS - 1) / MAX_GENERATIONS;
        }
        return null;
    }

    private static ShortTextSettings completeShortText(ShortTextSettings t) {
        ShortTextSettings.Builder b = t.toBuilder();
        if (t.getMaxChars() > 10_000) {
            throw Validation.invalid("settings.short_text.max_chars " + Integer.toUnsignedString(t.getMaxChars()) + " outside 1..10000");
        }
        b.setMaxChars(t.getMaxChars() == 0 ? 200 : t.getMaxChars());
        if (t.getCandidateDistance() > BlockTables.MAX_NEIGHBOUR_DISTANCE) {
            throw Validation.invalid("settings.short_text.candidate_distance " + Integer.toUnsignedString(t.getCandidateDistance())
                    + " outside 0.." + BlockTables.MAX_NEIGHBOUR_DISTANCE);
        }
        b.setCandidateDistance(t.getCandidateDistance() == 0 ? BlockTables.MAX_NEIGHBOUR_DISTANCE : t.getCandidateDistance());
        if (!(t.getMinJaccard() >= 0 && t.getMinJaccard() <= 1)) {
            throw Validation.invalid("settings.short_text.min_jaccard " + t.getMinJaccard() + " outside (0, 1]");
        }
        b.setMinJaccard(t.getMinJaccard() == 0 ? 0.6 : t.getMinJaccard());
        if (t.getShingleSize() > 16) {
            throw Validation.invalid("settings.short_text.shingle_size " + Integer.toUnsignedString(t.getShingleSize()) + " outside 1..16");
        }
        b.setShingleSize(t.getShingleSize() == 0 ? 3 : t.getShingleSize());
        return b.build();
    }

    /**
     * The sketch settings made explicit: unset means the default ({@link #SKETCH_BY_DEFAULT});
     * off is kept as a bare {@code enabled = false}.
     */
    private static SketchSettings completeSketch(CollectionSettings s) {
        if (s.hasSketch() ? !s.getSketch().getEnabled() : !SKETCH_BY_DEFAULT) {
            return SketchSettings.newBuilder().setEnabled(false).build();
        }
        SketchSettings t = s.getSketch();
        if (!(t.getMinJaccard() >= 0 && t.getMinJaccard() <= 1)) {
            throw Validation.invalid("settings.sketch.min_jaccard " + t.getMinJaccard() + " outside (0, 1]");
        }
        if (t.getCandidateDistance() > BlockTables.MAX_NEIGHBOUR_DISTANCE) {
            throw Validation.invalid("settings.sketch.candidate_distance " + Integer.toUnsignedString(t.getCandidateDistance())
                    + " outside 0.." + BlockTables.MAX_NEIGHBOUR_DISTANCE);
        }
        if (t.getWideCandidateDistance() > BlockTables.MAX_NEIGHBOUR_DISTANCE) {
            throw Validation.invalid("settings.sketch.wide_candidate_distance " + Integer.toUnsignedString(t.getWideCandidateDistance())
                    + " outside 0.." + BlockTables.MAX_NEIGHBOUR_DISTANCE);
        }
        if (t.getWideMaxWords() > MAX_WIDE_WORDS) {
            throw Validation.invalid("settings.sketch.wide_max_words " + Integer.toUnsignedString(t.getWideMaxWords())
                    + " outside 0.." + MAX_WIDE_WORDS);
        }
        return SketchSettings.newBuilder().setEnabled(true)
                .setMinJaccard(t.getMinJaccard() == 0 ? DEFAULT_SKETCH_MIN_JACCARD : t.getMinJaccard())
                .setCandidateDistance(t.getCandidateDistance() == 0 ? DEFAULT_SKETCH_CANDIDATE_DISTANCE : t.getCandidateDistance())
                .setWideCandidateDistance(t.getWideCandidateDistance() == 0 ? DEFAULT_WIDE_CANDIDATE_DISTANCE : t.getWideCandidateDistance())
                .setWideMaxWords(t.getWideMaxWords() == 0 ? DEFAULT_WIDE_MAX_WORDS : t.getWideMaxWords())
                .build();
    }

    /**
     * The short-text fingerprint made explicit: unset means on with its defaults where sketches
     * are on ({@link #SHORT_FINGERPRINT_BY_DEFAULT}), else off; off is kept as a bare
     * {@code enabled = false}. It needs sketches: they are what keeps its candidates honest.
     */
    private static void completeShortFingerprint(CollectionSettings s, CollectionSettings.Builder b) {
        boolean sketches = b.getSketch().getEnabled();
        if (s.hasShortFingerprint() ? !s.getShortFingerprint().getEnabled() : !(SHORT_FINGERPRINT_BY_DEFAULT && sketches)) {
            b.setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(false));
            return;
        }
        if (!sketches) {
            throw Validation.invalid("settings.short_fingerprint needs settings.sketch: its candidates are verified by sketches");
        }
        ShortFingerprintSettings t = s.getShortFingerprint();
        if (t.getMaxLetters() > ShortTextFingerprint.MAX_LETTERS) {
            throw Validation.invalid("settings.short_fingerprint.max_letters " + Integer.toUnsignedString(t.getMaxLetters())
                    + " outside 1.." + ShortTextFingerprint.MAX_LETTERS);
        }
        if (t.getCandidateDistance() > BlockTables.MAX_CANDIDATE_DISTANCE) {
            throw Validation.invalid("settings.short_fingerprint.candidate_distance " + Integer.toUnsignedString(t.getCandidateDistance())
                    + " outside 0.." + BlockTables.MAX_CANDIDATE_DISTANCE);
        }
        if (!(t.getMinJaccard() >= 0 && t.getMinJaccard() <= 1)) {
            throw Validation.invalid("settings.short_fingerprint.min_jaccard " + t.getMinJaccard() + " outside (0, 1]");
        }
        if (t.getBlocks() == ShortFingerprintBlocks.UNRECOGNIZED) {
            throw Validation.invalid("settings.short_fingerprint.blocks has an unknown value " + t.getBlocksValue());
        }
        if (t.getOrder() == ShortFingerprintOrder.UNRECOGNIZED) {
            throw Validation.invalid("settings.short_fingerprint.order has an unknown value " + t.getOrderValue());
        }
        b.setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(true)
                .setMaxLetters(t.getMaxLetters() == 0 ? ShortTextFingerprint.DEFAULT_MAX_LETTERS : t.getMaxLetters())
                .setCandidateDistance(t.getCandidateDistance() == 0 ? DEFAULT_SHORT_FINGERPRINT_DISTANCE : t.getCandidateDistance())
                .setMinJaccard(t.getMinJaccard() == 0 ? DEFAULT_SHORT_FINGERPRINT_MIN_JACCARD : t.getMinJaccard())
                .setBlocks(t.getBlocks() == ShortFingerprintBlocks.SHORT_FINGERPRINT_BLOCKS_UNSPECIFIED ? DEFAULT_SHORT_FINGERPRINT_BLOCKS : t.getBlocks())
                .setOrder(t.getOrder() == ShortFingerprintOrder.SHORT_FINGERPRINT_ORDER_UNSPECIFIED ? DEFAULT_SHORT_FINGERPRINT_ORDER : t.getOrder()));
    }

    /**
     * How the collection fingerprints short texts, and the sketch rule of their MinHash probes
     * (the sketch's threshold where the settings were stored before they had their own); null
     * when it gives every text its SimHash (off, or settings stored before it existed).
     */
    static ShortFingerprintRule shortFingerprintRule(CollectionSettings s) {
        SketchRule sketch = sketchRule(s);
        if (sketch == null || !s.hasShortFingerprint() || !s.getShortFingerprint().getEnabled()) {
            return null;
        }
        ShortFingerprintSettings t = s.getShortFingerprint();
        double minJaccard = t.getMinJaccard() == 0 ? sketch.minJaccard() : t.getMinJaccard();
        boolean partitioned = t.getBlocks() == ShortFingerprintBlocks.PARTITIONED_BLOCKS;
        // Unset: stored before the field existed, with 64-bit products.
        BitMinHash.BinOrder order = t.getOrder() == ShortFingerprintOrder.PRODUCTS_32 ? BitMinHash.BinOrder.PRODUCTS_32 : BitMinHash.BinOrder.PRODUCTS_64;
        return new ShortFingerprintRule(new ShortTextFingerprint(t.getMaxLetters()),
                new SketchRule(t.getCandidateDistance(), minJaccard, sketch.sketcher()), partitioned, order);
    }

    /** The collection's sketch rule, or null when sketches are off (or the settings predate them). */
    static SketchRule sketchRule(CollectionSettings s) {
        if (!s.hasSketch() || !s.getSketch().getEnabled()) {
            return null;
        }
        return new SketchRule(s.getSketch().getCandidateDistance(), s.getSketch().getMinJaccard(), Sketcher.DEFAULT);
    }

    /**
     * The sketch rule of SimHash probes by texts of at most {@code wide_max_words} words
     * ({@link io.simdex.core.text.WordCount}); null when it is no wider than {@link #sketchRule}
     * (sketches off, or settings stored before it existed).
     */
    static SketchRule wideSketchRule(CollectionSettings s) {
        SketchRule rule = sketchRule(s);
        SketchSettings t = s.getSketch();
        if (rule == null || t.getWideMaxWords() == 0 || t.getWideCandidateDistance() <= rule.candidateDistance()) {
            return null;
        }
        return new SketchRule(t.getWideCandidateDistance(), rule.minJaccard(), rule.sketcher());
    }

    /** The collection's short-text rule, or null when verification is off. */
    static ShortTextRule shortTextRule(CollectionSettings s) {
        if (!s.hasShortText() || !s.getShortText().getEnabled()) {
            return null;
        }
        ShortTextSettings t = s.getShortText();
        return new ShortTextRule(t.getMaxChars(), t.getCandidateDistance(), t.getMinJaccard(), t.getShingleSize());
    }

    static int maxDistance(CollectionSettings s) {
        return s.getMaxDistance().getValue();
    }

    static Duration retention(CollectionSettings s) {
        return Duration.ofSeconds(s.getRetentionSeconds());
    }

    static Duration generation(CollectionSettings s) {
        return Duration.ofSeconds(Math.max(1, s.getGenerationSeconds()));
    }

    /**
     * The text fingerprinter complete settings describe. Settings stored before han_tokens and
     * stop_words existed have them unset, and get the pipeline they were created with: HanLP's
     * words, stop words dropped unless keep_stop_words.
     */
    static TextFingerprinter fingerprinter(CollectionSettings s) {
        io.simdex.core.text.Tokenization tokenization = s.getTokenization() == Tokenization.CHAR_NGRAMS
                ? io.simdex.core.text.Tokenization.CHAR_NGRAMS : io.simdex.core.text.Tokenization.WORDS;
        int shingle = tokenization == io.simdex.core.text.Tokenization.CHAR_NGRAMS ? s.getNgramSize() : 1;
        boolean dropStopWords = s.getStopWords() == StopWords.STOP_WORDS_UNSPECIFIED
                ? !s.getKeepStopWords() : s.getStopWords() == StopWords.DROP_STOP_WORDS;
        HanTokens han = s.getHanTokens() == io.simdex.proto.v1.HanTokens.HAN_CHARACTERS ? HanTokens.CHARACTERS : HanTokens.DICTIONARY_WORDS;
        if (s.getWeighting() == Weighting.TF_IDF) {
            TextSettings ts = new TextSettings(tokenization, io.simdex.core.text.Weighting.TF_IDF, shingle, dropStopWords, han);
            if (s.getBuiltInIdf()) {
                return TextFingerprinter.of(ts, IdfTable.builtIn().with(s.getIdfMap()));
            }
            if (s.getIdfMap().isEmpty()) {
                return TextFingerprinter.of(ts);
            }
            double unknown = s.getIdfMap().values().stream().mapToDouble(Double::doubleValue).max().orElse(1.0);
            return TextFingerprinter.of(ts, IdfTable.of(s.getIdfMap(), unknown));
        }
        return TextFingerprinter.of(new TextSettings(tokenization, io.simdex.core.text.Weighting.TF, shingle, dropStopWords, han));
    }
}
