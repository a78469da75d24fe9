package io.simdex.router;

import java.util.SplittableRandom;
import java.util.stream.IntStream;

/** Random texts over a vocabulary of 400 made-up words, and near copies of them with words replaced. */
final class WordTexts {
    private final SplittableRandom rnd;
    private final String[] vocabulary;

    WordTexts(SplittableRandom rnd) {
        this.rnd = rnd;
        this.vocabulary = rnd.ints(400, 3, 9).mapToObj(this::word).toArray(String[]::new);
    }

    /** {@code words} random words, one space apart. */
    String text(int words) {
        return String.join(" ", IntStream.range(0, words).mapToObj(i -> vocabulary[rnd.nextInt(vocabulary.length)]).toList());
    }

    /** {@code text} with {@code words} of its words replaced. */
    String edit(String text, int words) {
        String[] w = text.split(" ");
        for (int i = 0; i < words; i++) {
            w[rnd.nextInt(w.length)] = vocabulary[rnd.nextInt(vocabulary.length)];
        }
        return String.join(" ", w);
    }

    private String word(int letters) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < letters; i++) {
            b.append((char) ('a' + rnd.nextInt(26)));
        }
        return b.toString();
    }
}
