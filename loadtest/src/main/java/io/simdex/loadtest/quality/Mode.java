package io.simdex.loadtest.quality;

import io.simdex.core.text.BitMinHash;
import io.simdex.core.text.ShortTextFingerprint;
import io.simdex.fingerprint.BlockTables;

/**
 * One way of deciding that two texts are near-duplicates, over a corpus's {@link PairScores}.
 *
 * @param name        as the report shows it
 * @param bytesPerDoc what the index keeps per document beyond its id, as the report shows it
 * @param rule        the decision for pair {@code p}
 */
record Mode(String name, String bytesPerDoc, Rule rule) {
    interface Rule {
        boolean duplicate(PairScores s, int p);
    }

    static final int K = 3;

    static Mode basicSimHash() {
        return new Mode("basic SimHash (words, k <= 3)", "8", (s, p) -> s.basic[p] <= K);
    }

    /** What a new collection does: {@link io.simdex.core.text.TextSettings#recommended()}. */
    static Mode simdexDefault() {
        return new Mode("simdex default (words, Han characters, stop words kept, k <= 3)", "8", (s, p) -> s.simdex[p] <= K);
    }

    /** What a collection created before HanTokens does: {@link io.simdex.core.text.TextSettings#defaults()}. */
    static Mode simdexDefaultBefore() {
        int c = FeatureCandidates.indexOf(io.simdex.core.text.TextSettings.defaults(), false);
        return new Mode("simdex default before (words, HanLP words, stop words dropped, k <= 3)", "8", (s, p) -> s.features[c][p] <= K);
    }

    /** The default with the built-in idf table ({@link io.simdex.core.text.IdfTable#builtIn()}), stop words dropped. */
    static Mode builtInIdf() {
        io.simdex.core.text.TextSettings r = io.simdex.core.text.TextSettings.recommended();
        int c = FeatureCandidates.indexOf(new io.simdex.core.text.TextSettings(r.tokenization(), io.simdex.core.text.Weighting.TF_IDF,
                r.shingleSize(), true, r.hanTokens()), true);
        return new Mode("simdex built-in idf (words, Han characters, stop words dropped, k <= 3)", "8", (s, p) -> s.features[c][p] <= K);
    }

    /** Candidate feature pipeline {@code c} of {@link FeatureCandidates#all()} at distance <= 3. */
    static Mode features(int c) {
        return new Mode("simdex " + FeatureCandidates.all().get(c).name() + " (k <= 3)", "8", (s, p) -> s.features[c][p] <= K);
    }

    /** A {@code --short-text} collection: short pairs within 7 and exact 3-gram Jaccard >= 0.6, others within 3. */
    static Mode simdexShortText() {
        return new Mode("simdex --short-text", "8 (+ short texts)",
                (s, p) -> s.shortJaccard[p] >= 0 ? s.simdex[p] <= 7 && s.shortJaccard[p] >= 0.6 : s.simdex[p] <= K);
    }

    /**
     * simdex with sketches: candidates within {@code radius} kept when the sketch of shape
     * {@code shape} estimates at least {@code minJaccard}; with {@code keepNear} those within 3
     * are kept whatever the estimate.
     */
    static Mode sketch(int shape, int radius, double minJaccard, boolean keepNear) {
        String name = String.format(java.util.Locale.ROOT, "simdex + sketch (%s, k <= %d, J >= %.2f%s)",
                PairScores.SHAPES.get(shape), radius, minJaccard, keepNear ? ", all k <= 3 kept" : "");
        return new Mode(name, "8 + 38", (s, p) -> s.simdex[p] <= radius
                && (keepNear && s.simdex[p] <= K || s.estimate[shape][p] >= minJaccard));
    }

    /** What a collection created with {@code --sketch} does (CollectionSettingsRules' sketch defaults). */
    static Mode shipped() {
        Mode m = sketch(1, 7, 0.4, false);
        return new Mode("simdex --sketch (" + m.name().substring("simdex + sketch (".length()), m.bytesPerDoc(), m.rule());
    }

    /**
     * {@link BitMinHash} fingerprints as the only candidate source: candidates within
     * {@code radius}, kept when the letters 3-gram sketch estimates at least {@code minJaccard}.
     */
    static Mode bitMinHash(int radius, double minJaccard) {
        return new Mode(String.format(java.util.Locale.ROOT, "b-bit MinHash fingerprint (Han characters, letters 2-grams, k <= %d, J >= %.2f)",
                radius, minJaccard), "8 + 38", (s, p) -> s.bitMinHash[p] <= radius && s.estimate[1][p] >= minJaccard);
    }

    /**
     * What a collection with a {@link ShortTextFingerprint} does: texts of at most
     * {@code maxLetters} letters and digits are stored with their {@link BitMinHash}
     * fingerprint, longer ones with simdex's SimHash, and a text near the boundary probes with
     * both; candidates of a probe of the stored text's kind, within {@code minHashRadius} or
     * {@code simHashRadius}, are kept when the letters 3-gram sketch estimates at least
     * {@code minJaccard}. The pair's first text is the stored one; {@code band} is the factor
     * around the boundary where a text probes with both (1: never).
     */
    static Mode byLength(int maxLetters, int minHashRadius, int simHashRadius, double minJaccard, double band) {
        return byLength(maxLetters, minHashRadius, simHashRadius, minJaccard, minJaccard, band);
    }

    /**
     * As {@link #byLength(int, int, int, double, double)}, the candidates of MinHash probes kept
     * at {@code minHashJaccard} and those of SimHash probes at {@code minJaccard}.
     */
    static Mode byLength(int maxLetters, int minHashRadius, int simHashRadius, double minJaccard, double minHashJaccard, double band) {
        return byLength(maxLetters, minHashRadius, simHashRadius, minJaccard, minHashJaccard, band, false);
    }

    /** As above, short texts fingerprinted by {@link BitMinHash#partitioned} when {@code partitioned}. */
    static Mode byLength(int maxLetters, int minHashRadius, int simHashRadius, double minJaccard, double minHashJaccard, double band,
                         boolean partitioned) {
        return byLength(maxLetters, minHashRadius, simHashRadius, minJaccard, minHashJaccard, band, partitioned, simHashRadius, 0);
    }

    /**
     * As above, a SimHash probe by a text of at most {@code wideWords} words taking its
     * candidates within {@code wideRadius} (the collection setting sketch.wide_*).
     */
    static Mode byLength(int maxLetters, int minHashRadius, int simHashRadius, double minJaccard, double minHashJaccard, double band,
                         boolean partitioned, int wideRadius, int wideWords) {
        return byLength(maxLetters, minHashRadius, simHashRadius, minJaccard, minHashJaccard, band, partitioned, wideRadius, wideWords,
                Integer.MAX_VALUE, minHashRadius);
    }

    /**
     * As above, a MinHash probe by a text of more than {@code narrowFrom} letters taking its
     * candidates within {@code narrowRadius}: with {@code narrowFrom} at the boundary, the second
     * probe of a long text near it, whose candidates crowd (letter pairs of 300-letter English
     * texts have much in common) and cost most of its sketch reads.
     */
    static Mode byLength(int maxLetters, int minHashRadius, int simHashRadius, double minJaccard, double minHashJaccard, double band,
                         boolean partitioned, int wideRadius, int wideWords, int narrowFrom, int narrowRadius) {
        return byLength(maxLetters, minHashRadius, simHashRadius, minJaccard, minHashJaccard, band, partitioned, wideRadius, wideWords,
                narrowFrom, narrowRadius, simHashRadius);
    }

    /** A second probe that reads the buckets its first would ({@link #byLength}'s {@code secondBuckets}). */
    static final int AS_THE_FIRST = Integer.MAX_VALUE;

    /**
     * As above, the second probe of a text near the boundary reading the buckets of a probe
     * within {@code secondBuckets} ({@link #AS_THE_FIRST}: those the first probe would read):
     * a SimHash second probe takes its candidates within it, a MinHash one those these buckets
     * hold within its radius (a block equal, or within one bit in the first secondBuckets - 3
     * tables). New collections read the buckets of the SimHash radius.
     */
    static Mode byLength(int maxLetters, int minHashRadius, int simHashRadius, double minJaccard, double minHashJaccard, double band,
                         boolean partitioned, int wideRadius, int wideWords, int narrowFrom, int narrowRadius, int secondBuckets) {
        ShortTextFingerprint rule = new ShortTextFingerprint(maxLetters);
        String thresholds = minHashJaccard == minJaccard ? String.format(java.util.Locale.ROOT, "J >= %.2f", minJaccard)
                : String.format(java.util.Locale.ROOT, "J >= %.2f (MinHash candidates %.2f)", minJaccard, minHashJaccard);
        String simHash = wideRadius > simHashRadius && wideWords > 0
                ? String.format(java.util.Locale.ROOT, "SimHash above (k <= %d up to %d words, k <= %d above)", wideRadius, wideWords, simHashRadius)
                : String.format(java.util.Locale.ROOT, "SimHash above (k <= %d)", simHashRadius);
        String minHash = narrowFrom < Integer.MAX_VALUE && narrowRadius < minHashRadius
                ? String.format(java.util.Locale.ROOT, "k <= %d, by texts over %d letters k <= %d", minHashRadius, narrowFrom, narrowRadius)
                : String.format(java.util.Locale.ROOT, "k <= %d", minHashRadius);
        String second = band <= 1 ? "no second probe"
                : secondBuckets == AS_THE_FIRST ? "the second probe as the first" : "the second probe in the buckets of " + secondBuckets;
        return new Mode(String.format(java.util.Locale.ROOT,
                "simdex + sketch, %sb-bit MinHash fingerprint up to %d letters (%s), %s, %s, both probed within %sx, %s",
                partitioned ? "partitioned " : "", maxLetters, minHash, simHash, thresholds,
                band == (int) band ? String.valueOf((int) band) : String.valueOf(band), second),
                "8 + 38", (s, p) -> {
                    boolean storedShort = rule.isShort(s.storedLetters[p]);
                    boolean secondProbe = rule.isShort(s.probeLetters[p]) != storedShort;
                    if (secondProbe && !rule.probesBoth(s.probeLetters[p], band)) {
                        return false;
                    }
                    int distance = storedShort ? (partitioned ? s.partMinHash[p] : s.bitMinHash[p]) : s.simdex[p];
                    // The probing text's length picks its SimHash radius, as the router does.
                    int simHashReach = s.probeWords[p] <= wideWords ? Math.max(simHashRadius, wideRadius) : simHashRadius;
                    // Beyond 7 a MinHash candidate is one the probed buckets hold: a block within one bit.
                    int minHashReach = s.probeLetters[p] > narrowFrom ? narrowRadius : minHashRadius;
                    int buckets = secondProbe && secondBuckets != AS_THE_FIRST ? secondBuckets : Math.max(minHashReach, simHashReach);
                    long xor = storedShort ? (partitioned ? s.partMinHashXor[p] : s.bitMinHashXor[p]) : 0;
                    boolean candidate = storedShort ? distance <= Math.min(Math.min(7, buckets), minHashReach)
                            || distance <= minHashReach && heldBy(xor, buckets)
                            : distance <= Math.min(simHashReach, buckets);
                    return candidate && s.estimate[1][p] >= (storedShort ? minHashJaccard : minJaccard);
                });
    }

    /**
     * Whether the buckets of a probe within {@code buckets} hold a fingerprint that differs from
     * it by {@code xor}: a 16-bit block equal, or within one bit in a table whose neighbour
     * buckets are read ({@link BlockTables#neighbourTables}).
     */
    static boolean heldBy(long xor, int buckets) {
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int apart = Integer.bitCount(BlockTables.block(xor, t));
            if (apart == 0 || apart == 1 && t < BlockTables.neighbourTables(buckets)) {
                return true;
            }
        }
        return false;
    }

    static Mode lsh(int shingle, int bands, int rows) {
        return new Mode(String.format(java.util.Locale.ROOT, "MinHash LSH (letters %d-grams, %d bands x %d rows)",
                PairScores.LSH_SHINGLES[shingle], bands, rows), (MinHashLsh.PERMUTATIONS * 4) + " + " + bands + " band keys",
                (s, p) -> MinHashLsh.candidates(s.lsh[shingle][s.corpus.pairs.get(p).a()], s.lsh[shingle][s.corpus.pairs.get(p).b()], bands, rows));
    }

    /**
     * New collections' verification without their index: every pair a candidate, kept when the
     * letters 3-gram sketch estimates at least {@code minHashJaccard} for a stored short text (a
     * MinHash probe's candidate) and {@code minJaccard} for a longer one. Beside
     * {@link #byLength}'s rows it tells what the probes lose (candidates never found) from what
     * the sketch's thresholds do.
     */
    static Mode verificationAlone(int maxLetters, double minJaccard, double minHashJaccard) {
        ShortTextFingerprint rule = new ShortTextFingerprint(maxLetters);
        return new Mode(String.format(java.util.Locale.ROOT,
                "sketch verification alone, every pair a candidate: J >= %.2f (stored texts up to %d letters %.2f) (reference, no index)",
                minJaccard, maxLetters, minHashJaccard), "8 + 38",
                (s, p) -> s.estimate[1][p] >= (rule.isShort(s.storedLetters[p]) ? minHashJaccard : minJaccard));
    }

    /** Exact letters 3-gram Jaccard >= t: the ceiling for any sketch of those n-grams; stores the text. */
    static Mode exactJaccard(double t) {
        return new Mode(String.format(java.util.Locale.ROOT, "exact Jaccard >= %.2f (reference, no index)", t), "the text",
                (s, p) -> s.exact[p] >= t);
    }
}
