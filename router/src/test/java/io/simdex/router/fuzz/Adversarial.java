package io.simdex.router.fuzz;

import java.util.List;
import java.util.Random;

/** Seeded adversarial values: names, ids, texts and numbers at and past the edges the API documents. */
final class Adversarial {
    static final List<String> NAMES = List.of("default", "fz", "nope", "", "../../victim", "..", ".", "a/b", "a\\b", "urls.jobs",
            "x".repeat(65), "x".repeat(64), "a\u0000b", "na\u00efve", "fz\n", "CON", "g-1");
    private static final long[] LONGS = {0, -1, 1, 2, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, 1L << 32};
    private static final int[] INTS = {0, -1, 1, 3, 4, 7, 8, 100, 4095, 4096, 10_000, 10_001, 65_536, Integer.MIN_VALUE, Integer.MAX_VALUE};
    private static final String ALPHABET = "abcXYZ019 _-./\\\n\t\u0000\u007f\u00e9\u4e2d\u2028\ufeff";

    private final Random r;

    Adversarial(long seed) {
        r = new Random(seed);
    }

    Random random() {
        return r;
    }

    int pick(int n) {
        return r.nextInt(n);
    }

    boolean chance(int percent) {
        return r.nextInt(100) < percent;
    }

    String name() {
        return NAMES.get(r.nextInt(NAMES.size()));
    }

    long number() {
        return chance(70) ? LONGS[r.nextInt(LONGS.length)] : r.nextLong();
    }

    int smallNumber() {
        return chance(80) ? INTS[r.nextInt(INTS.length)] : r.nextInt();
    }

    /** A repeated field's length: mostly small, sometimes past the batch limit. */
    int count() {
        int c = r.nextInt(100);
        return c < 85 ? r.nextInt(4) : c < 92 ? 10_001 : r.nextInt(300);
    }

    /** As {@link #count}, sometimes huge: for fields of numbers. */
    int numbersCount() {
        return chance(3) ? 1_000_000 : count();
    }

    String string() {
        int kind = r.nextInt(10);
        if (kind == 0) {
            return "";
        }
        if (kind == 1) {
            return "a".repeat(r.nextBoolean() ? 256 : 257);
        }
        if (kind == 2) {
            return "  \n ";
        }
        StringBuilder b = new StringBuilder();
        int len = 1 + r.nextInt(kind == 3 ? 2_000 : 40);
        for (int i = 0; i < len; i++) {
            b.append(chance(70) ? (char) ('a' + r.nextInt(26)) : ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    /** A text for fingerprinting: words, sometimes blank or with odd characters. */
    String text() {
        if (chance(20)) {
            return string();
        }
        StringBuilder b = new StringBuilder();
        int words = 1 + r.nextInt(30);
        for (int i = 0; i < words; i++) {
            b.append(i == 0 ? "" : " ").append("w").append(r.nextInt(50));
        }
        return b.toString();
    }

    byte[] bytes() {
        byte[] b = new byte[chance(70) ? 16 : r.nextInt(40)];
        r.nextBytes(b);
        return b;
    }
}
