package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MinHashSketchTest {
    private static final int BINS = 60;
    private static final int BITS = 6;
    private static final int N = 3;
    /** Deviations beyond this many standard deviations fail: about 1 in 1.7 million per trial. */
    private static final double SIGMAS = 5;

    /** The estimator's standard deviation at Jaccard j (the class comment's formula). */
    private static double sigma(double j, int bins, int bits) {
        double chance = 1.0 / (1 << bits);
        double p = j + (1 - j) * chance;
        return Math.sqrt(p * (1 - p) / bins) / (1 - chance);
    }

    @Test
    void estimate_randomTextPairs_withinFiveSigmaOfExactJaccard_andUnbiased() {
        SplittableRandom random = new SplittableRandom(20240607);
        int trials = 300;
        double sumError = 0;
        double sumVariance = 0;
        for (int t = 0; t < trials; t++) {
            String a = randomText(random, 400 + random.nextInt(800));
            String b = mutate(random, a, random.nextDouble() * 0.3);
            double exact = ShingleJaccard.similarity(a, b, N);
            double est = MinHashSketch.of(a, N, BINS, BITS).estimate(MinHashSketch.of(b, N, BINS, BITS));
            double s = sigma(exact, BINS, BITS);
            assertTrue(Math.abs(est - exact) <= SIGMAS * s + 1e-9,
                    "trial " + t + ": estimate " + est + ", exact " + exact + ", sigma " + s);
            sumError += est - exact;
            sumVariance += s * s;
        }
        // The mean error of independent trials has standard deviation sqrt(sum of variances) / trials.
        double meanSigma = Math.sqrt(sumVariance) / trials;
        assertTrue(Math.abs(sumError / trials) <= SIGMAS * meanSigma, "mean error " + sumError / trials + ", sigma " + meanSigma);
    }

    @Test
    void estimate_unrelatedTexts_nearZero() {
        SplittableRandom random = new SplittableRandom(7);
        for (int t = 0; t < 50; t++) {
            String a = randomText(random, 600);
            String b = randomText(random, 600);
            double exact = ShingleJaccard.similarity(a, b, N);
            double est = MinHashSketch.of(a, N, BINS, BITS).estimate(MinHashSketch.of(b, N, BINS, BITS));
            assertTrue(Math.abs(est - exact) <= SIGMAS * sigma(exact, BINS, BITS), est + " vs exact " + exact);
        }
    }

    @Test
    void estimate_identicalTexts_one() {
        MinHashSketch a = MinHashSketch.of("the same text, twice", N, BINS, BITS);
        assertEquals(1.0, a.estimate(MinHashSketch.of("the same text, twice", N, BINS, BITS)));
    }

    @Test
    void of_textsShorterThanN_oneShingle() {
        MinHashSketch ab = MinHashSketch.of("ab", N, BINS, BITS);
        assertEquals(1.0, ab.estimate(MinHashSketch.of("ab", N, BINS, BITS)), "densification fills every bin alike");
        assertEquals(BINS, MinHashSketch.of("", N, BINS, BITS).bins());
    }

    @Test
    void estimate_differentShape_zero() {
        MinHashSketch a = MinHashSketch.of("some text here", N, BINS, BITS);
        assertEquals(0.0, a.estimate(MinHashSketch.of("some text here", N, BINS / 2, BITS)));
        assertEquals(0.0, a.estimate(MinHashSketch.of("some text here", N, BINS, BITS - 1)));
    }

    @Test
    void toString_parse_roundTrip_oneAsciiCharPerBin() {
        MinHashSketch a = MinHashSketch.of("a text to keep", N, BINS, BITS);
        String stored = a.toString();
        assertEquals(BINS, stored.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        assertEquals(a, MinHashSketch.parse(stored, BITS));
        assertNull(MinHashSketch.parse("", BITS));
        assertNull(MinHashSketch.parse("0~0", BITS), "'~' is no 6-bit value");
    }

    @Test
    void estimateStored_sameAsParsed_minusOneForOtherShapes() {
        MinHashSketch a = MinHashSketch.of("the quick brown fox jumps over the lazy dog", N, BINS, BITS);
        MinHashSketch b = MinHashSketch.of("the quick brown fox jumped over a lazy dog", N, BINS, BITS);
        assertEquals(a.estimate(b), a.estimateStored("#" + b, 1));
        assertEquals(1.0, a.estimateStored(a.toString(), 0));
        assertEquals(-1.0, a.estimateStored(b.toString().substring(1), 0), "one bin short");
        assertEquals(-1.0, a.estimateStored("~" + b.toString().substring(1), 0), "'~' is no 6-bit value");
        MinHashSketch fewerBits = MinHashSketch.of("the quick brown fox", N, BINS, 2);
        assertEquals(-1.0, fewerBits.estimateStored("9".repeat(BINS), 0), "9 is no 2-bit value");
        assertEquals(1.0, fewerBits.estimateStored(fewerBits.toString(), 0));
    }

    @Test
    void sketcher_rollingOverLettersAndDigits_equalsTheSketchOfTheirCopy() {
        SplittableRandom random = new SplittableRandom(41);
        String alphabet = "abcXYZ019 .,;-\u00e9\u4e2d\u6587\u3002\uff0c\n";
        for (int i = 0; i < 3_000; i++) {
            char[] text = new char[random.nextInt(40)];
            for (int k = 0; k < text.length; k++) {
                text[k] = alphabet.charAt(random.nextInt(alphabet.length()));
            }
            String t = new String(text);
            for (int n = 1; n <= 4; n++) {
                Sketcher sketcher = new Sketcher(n, BINS, BITS);
                assertEquals(MinHashSketch.of(Sketcher.lettersAndDigits(t), n, BINS, BITS), sketcher.sketch(t), "n " + n + ": '" + t + "'");
            }
        }
        assertNull(MinHashSketch.ofLettersAndDigits("a, b", 3, BINS, BITS), "fewer letters than n: the copy's rules");
    }

    @Test
    void of_badShape_rejected() {
        assertThrows(IllegalArgumentException.class, () -> MinHashSketch.of("x", 0, BINS, BITS));
        assertThrows(IllegalArgumentException.class, () -> MinHashSketch.of("x", 9, BINS, BITS));
        assertThrows(IllegalArgumentException.class, () -> MinHashSketch.of("x", N, 0, BITS));
        assertThrows(IllegalArgumentException.class, () -> MinHashSketch.of("x", N, BINS, 7));
    }

    private static String randomText(SplittableRandom random, int length) {
        char[] out = new char[length];
        for (int i = 0; i < length; i++) {
            out[i] = (char) ('a' + random.nextInt(20));
        }
        return new String(out);
    }

    /** {@code text} with each character replaced with probability {@code rate}. */
    private static String mutate(SplittableRandom random, String text, double rate) {
        char[] out = text.toCharArray();
        for (int i = 0; i < out.length; i++) {
            if (random.nextDouble() < rate) {
                out[i] = (char) ('a' + random.nextInt(20));
            }
        }
        return new String(out);
    }
}
