package io.simdex.core.text;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;

/**
 * The built-in English and Chinese stop words, as normalised tokens. Immutable; one shared
 * instance, loaded once from {@code stopwords-en.txt} and {@code stopwords-zh.txt} next to
 * this class.
 *
 * <h2>Design</h2>
 * The lists are ours rather than HanLP's {@code CoreStopWordDictionary}: that one is a mutable
 * global, and it holds topic words ("computer", "system", 人, 大) that near-duplicate detection
 * should keep. Fingerprints are persisted, so the lists are part of the data format. Single CJK
 * characters are also kept in a bit set, for {@link Tokenization#CHAR_NGRAMS}, which drops them
 * character by character.
 */
final class StopWords {
    private static final String[] RESOURCES = {"stopwords-en.txt", "stopwords-zh.txt"};
    private static final StopWords DEFAULTS = load();

    private final Set<String> words;
    private final BitSet cjkChars;

    private StopWords(Set<String> words) {
        this.words = Set.copyOf(words);
        this.cjkChars = new BitSet();
        for (String word : words) {
            int cp = word.codePointAt(0);
            if (word.length() == Character.charCount(cp) && CharClass.isCjk(CharClass.of(cp))) {
                cjkChars.set(cp);
            }
        }
    }

    static StopWords defaults() {
        return DEFAULTS;
    }

    /** Whether a normalised token is a stop word. */
    boolean contains(String token) {
        return words.contains(token);
    }

    /** Whether a CJK code point is, on its own, a stop word (的, 了, 是). */
    boolean isCjkStopChar(int cp) {
        return cjkChars.get(cp);
    }

    /** All entries, normalised. */
    Set<String> words() {
        return words;
    }

    private static StopWords load() {
        Set<String> words = new HashSet<>();
        for (String resource : RESOURCES) {
            try (InputStream in = StopWords.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("stop-word list missing from the class path: " + resource);
                }
                readInto(in, words);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read stop-word list " + resource, e);
            }
        }
        return new StopWords(words);
    }

    private static void readInto(InputStream in, Set<String> words) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            String entry = line.strip();
            if (!entry.isEmpty() && entry.charAt(0) != '#') {
                words.add(Normalization.apply(entry));
            }
        }
    }
}
