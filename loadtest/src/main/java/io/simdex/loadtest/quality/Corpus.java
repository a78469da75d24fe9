package io.simdex.loadtest.quality;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A labelled pair set for one language and length: positives are a document and an edited copy
 * (every {@link EditKind} at every {@link EditKind.Strength}); negatives are two different
 * documents: as many hard ones as there are (same group: same package, same page, same poet), up to
 * {@value #NEGATIVES_PER_DOC} per document, and as many random ones from different groups.
 *
 * <p>Negatives whose texts are near-identical anyway (Jaccard similarity of their shingle
 * sets at least {@value #NEAR_IDENTICAL_JACCARD}: word 3-grams in English, Han 3-grams in
 * Chinese) are left out and counted: they are duplicates in fact, whatever their source says.
 * Every random choice comes from seeds derived from the run's seed and the document's id.
 */
final class Corpus {
    static final double NEAR_IDENTICAL_JACCARD = 0.5;
    /** Hard negatives per document, and as many random ones: enough to see false-positive rates near 10^-4. */
    private static final int NEGATIVES_PER_DOC = 20;
    private static final int MAX_PAIRS_PER_GROUP = 5000;

    /** Two texts of {@link #texts}; kind and strength are null for negatives. */
    record Pair(int a, int b, EditKind kind, EditKind.Strength strength, boolean hard) {
        boolean positive() {
            return kind != null;
        }
    }

    final Language language;
    /** Long: edits are a share of the words; short: a few words. */
    final boolean longText;
    /** The length class the report names: long, short, or boundary (long-text edits). */
    final String lengthClass;
    final int documents;
    final List<String> texts = new ArrayList<>();
    /** The group (package, page, poet) of each of the first {@link #documents} texts. */
    private final List<String> groups = new ArrayList<>();
    /** The near-identity shingles of each of the first {@link #documents} texts. */
    private List<Set<String>> documentShingles;
    final List<Pair> pairs = new ArrayList<>();
    int excludedNegatives;

    private Corpus(Language language, boolean longText, String lengthClass, int documents) {
        this.language = language;
        this.longText = longText;
        this.lengthClass = lengthClass;
        this.documents = documents;
    }

    /** Tuning half: thresholds are chosen on its pairs. */
    static final int TUNE = 0;
    /** Held-out half: the report's figures. */
    static final int HELD_OUT = 1;

    /**
     * The half a pair belongs to: the parity of its document's index (documents are shuffled),
     * so no document or edited copy of it is in both; a negative across halves is in neither (-1).
     */
    int half(Pair p) {
        int a = p.a() % 2;
        return p.positive() || p.b() % 2 == a ? a : -1;
    }

    static Corpus build(List<Doc> docs, Language language, boolean longText, long seed) {
        return build(docs, language, longText, longText ? "long" : "short", seed);
    }

    static Corpus build(List<Doc> docs, Language language, boolean longText, String lengthClass, long seed) {
        Corpus c = new Corpus(language, longText, lengthClass, docs.size());
        docs.forEach(d -> c.texts.add(d.text()));
        docs.forEach(d -> c.groups.add(d.group()));
        for (int i = 0; i < docs.size(); i++) {
            c.addPositives(i, docs.get(i), seed);
        }
        c.addNegatives(docs, seed);
        return c;
    }

    private void addPositives(int doc, Doc d, long seed) {
        int units = language.units(d.text());
        for (EditKind kind : EditKind.values()) {
            for (EditKind.Strength s : EditKind.Strength.values()) {
                long pairSeed = seed ^ ((long) d.id().hashCode() << 16) ^ (kind.ordinal() * 31L + s.ordinal());
                Edits edits = new Edits(language, new SplittableRandom(pairSeed));
                texts.add(edits.apply(kind, d.text(), kind.count(s, longText, language, units)));
                pairs.add(new Pair(doc, texts.size() - 1, kind, s, false));
            }
        }
    }

    /**
     * Whether documents {@code a} and {@code b} (of the first {@link #documents} texts) are
     * unrelated as the random negatives are: different groups, and not near-identical anyway.
     */
    boolean unrelated(int a, int b) {
        return !groups.get(a).equals(groups.get(b)) && jaccard(documentShingles.get(a), documentShingles.get(b)) < NEAR_IDENTICAL_JACCARD;
    }

    private void addNegatives(List<Doc> docs, long seed) {
        Random random = new Random(seed);
        List<Set<String>> shingles = docs.stream().map(d -> shingles(d.text())).toList();
        documentShingles = shingles;
        int wanted = NEGATIVES_PER_DOC * docs.size();
        Set<Long> used = new HashSet<>();
        int hard = 0;
        for (int[] p : sameGroupPairs(docs, random)) {
            if (hard >= wanted) {
                break;
            }
            hard += addNegative(p[0], p[1], true, shingles, used) ? 1 : 0;
        }
        int randomPairs = 0;
        for (int tries = 0; randomPairs < wanted && tries < 100 * wanted; tries++) {
            int a = random.nextInt(docs.size());
            int b = random.nextInt(docs.size());
            if (a != b && !docs.get(a).group().equals(docs.get(b).group())) {
                randomPairs += addNegative(a, b, false, shingles, used) ? 1 : 0;
            }
        }
    }

    private boolean addNegative(int a, int b, boolean hard, List<Set<String>> shingles, Set<Long> used) {
        long key = (long) Math.min(a, b) << 32 | Math.max(a, b);
        if (!used.add(key)) {
            return false;
        }
        if (jaccard(shingles.get(a), shingles.get(b)) >= NEAR_IDENTICAL_JACCARD) {
            excludedNegatives++;
            return false;
        }
        pairs.add(new Pair(a, b, null, null, hard));
        return true;
    }

    /** Pairs of documents in the same group, at most {@value #MAX_PAIRS_PER_GROUP} per group, shuffled. */
    private static List<int[]> sameGroupPairs(List<Doc> docs, Random random) {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < docs.size(); i++) {
            groups.computeIfAbsent(docs.get(i).group(), g -> new ArrayList<>()).add(i);
        }
        List<int[]> out = new ArrayList<>();
        for (List<Integer> members : groups.values()) {
            List<int[]> pairs = new ArrayList<>();
            for (int x = 0; x < members.size(); x++) {
                for (int y = x + 1; y < members.size(); y++) {
                    pairs.add(new int[] {members.get(x), members.get(y)});
                }
            }
            Collections.shuffle(pairs, random);
            out.addAll(pairs.subList(0, Math.min(MAX_PAIRS_PER_GROUP, pairs.size())));
        }
        Collections.shuffle(out, random);
        return out;
    }

    /** Word 3-grams (English) or Han-character 3-grams (Chinese) of the identity-normalised text. */
    Set<String> shingles(String text) {
        List<String> units = new ArrayList<>();
        if (language == Language.ENGLISH) {
            for (String w : text.toLowerCase().split("[^\\p{L}\\p{N}]+")) {
                if (!w.isEmpty()) {
                    units.add(w);
                }
            }
        } else {
            text.codePoints().filter(Language::isHan).forEach(cp -> units.add(new String(Character.toChars(cp))));
        }
        Set<String> out = new HashSet<>();
        for (int i = 0; i + 3 <= units.size(); i++) {
            out.add(String.join(" ", units.subList(i, i + 3)));
        }
        if (out.isEmpty()) {
            out.add(String.join(" ", units));
        }
        return out;
    }

    static double jaccard(Set<String> a, Set<String> b) {
        int common = 0;
        for (String s : a.size() <= b.size() ? a : b) {
            common += (a.size() <= b.size() ? b : a).contains(s) ? 1 : 0;
        }
        int union = a.size() + b.size() - common;
        return union == 0 ? 1.0 : common / (double) union;
    }
}
