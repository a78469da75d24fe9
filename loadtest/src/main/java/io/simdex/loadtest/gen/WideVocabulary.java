package io.simdex.loadtest.gen;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The vocabularies of core's built-in idf tables (10,000 English words from the files under a
 * Debian machine's {@code /usr/share/doc}, 3,300 Han characters from HanLP's dictionary), ranked
 * by document frequency, for documents whose unrelated pairs lie as far apart as real texts'.
 *
 * <p>A document draws {@value #TOPIC_SHARE_PERCENT}% of its words from its own topic (
 * {@value #TOPIC_WORDS} words drawn once, from below the {@value #COMMON} most common), the rest
 * by Zipf's law over the ranks (weight 1 / (rank + 1)): shared function words, and content
 * words that differ between documents, as in prose. With the fixed vocabulary of
 * {@link TextCorpus}'s small mode every text is about every word, and unrelated 300-word texts
 * come within 7 bits of each other by the hundred at 20,000 stored.
 */
final class WideVocabulary {
    static final int TOPIC_WORDS = 40;
    static final int TOPIC_SHARE_PERCENT = 30;
    static final int COMMON = 200;

    private final String[] words;
    /** cumulative[r] = sum of the Zipf weights of ranks 0..r. */
    private final double[] cumulative;

    private WideVocabulary(String[] words) {
        this.words = words;
        this.cumulative = new double[words.length];
        double sum = 0;
        for (int r = 0; r < words.length; r++) {
            sum += 1.0 / (r + 1);
            cumulative[r] = sum;
        }
    }

    static WideVocabulary english() {
        return Holder.ENGLISH;
    }

    static WideVocabulary chinese() {
        return Holder.CHINESE;
    }

    /** A topic: the words a document draws its topical share from. */
    String[] topic(SplittableRandom random) {
        String[] topic = new String[TOPIC_WORDS];
        for (int i = 0; i < topic.length; i++) {
            topic[i] = words[COMMON + random.nextInt(words.length - COMMON)];
        }
        return topic;
    }

    /** A word of a document about {@code topic}. */
    String word(SplittableRandom random, String[] topic) {
        if (random.nextInt(100) < TOPIC_SHARE_PERCENT) {
            return topic[random.nextInt(topic.length)];
        }
        return zipf(random);
    }

    /** A word by Zipf's law over the ranks. */
    String zipf(SplittableRandom random) {
        double u = random.nextDouble() * cumulative[cumulative.length - 1];
        int lo = 0;
        int hi = cumulative.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cumulative[mid] < u) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return words[lo];
    }

    /** The terms of an idf table resource kept by {@code keep}, most frequent (lowest idf) first. */
    private static WideVocabulary read(String resource, java.util.function.Predicate<String> keep) {
        record Term(String term, double idf) {
        }
        List<Term> terms = new ArrayList<>();
        try (InputStream in = io.simdex.core.text.IdfTable.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("idf table missing from the class path: " + resource);
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = r.readLine()) != null; ) {
                int tab = line.indexOf('\t');
                if (!line.startsWith("#") && tab > 0 && keep.test(line.substring(0, tab))) {
                    terms.add(new Term(line.substring(0, tab), Double.parseDouble(line.substring(tab + 1).strip())));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        terms.sort(java.util.Comparator.comparingDouble(Term::idf).thenComparing(Term::term));
        return new WideVocabulary(terms.stream().map(Term::term).toArray(String[]::new));
    }

    private static boolean isWord(String term) {
        return term.length() >= 1 && term.chars().allMatch(c -> c >= 'a' && c <= 'z');
    }

    private static boolean isHan(String term) {
        return term.length() == 1 && Character.UnicodeScript.of(term.charAt(0)) == Character.UnicodeScript.HAN;
    }

    /** Read once, on first use. */
    private static final class Holder {
        static final WideVocabulary ENGLISH = read("idf-en.txt", WideVocabulary::isWord);
        static final WideVocabulary CHINESE = read("idf-zh.txt", WideVocabulary::isHan);
    }
}
