package io.simdex.server.store;

import java.util.concurrent.atomic.LongAdder;

/**
 * The mean UTF-8 size of the ids a store has bound since it opened: what a new map generation
 * keyed or valued by ids is sized for. Chronicle Map allocates a generation's file whole, for
 * its entries at the average key and value size it is given, so a guess far from the ids in
 * use costs bytes on every entry: ids of 7 bytes in maps sized for 24 took 55 bytes of file an
 * entry where 33 do. Longer ids than the mean are safe: they fill a generation by its bytes
 * before its entries, and the next generation takes them ({@link GrowingMap}).
 *
 * <p>Until {@link #MIN_SEEN} ids are seen the configured guess is used: for a store's small
 * first generation, and after a restart, whose first generations are in their files already.
 */
final class IdSizes {
    static final int MIN_SEEN = 512;
    private final int guess;
    private final LongAdder bytes = new LongAdder();
    private final LongAdder ids = new LongAdder();

    IdSizes(int guess) {
        this.guess = Math.max(1, guess);
    }

    void seen(String id) {
        bytes.add(utf8Length(id));
        ids.increment();
    }

    /** The mean size in bytes, rounded up; the guess until enough ids are seen. */
    int average() {
        long n = ids.sum();
        return n < MIN_SEEN ? guess : (int) Math.max(1, (bytes.sum() + n - 1) / n);
    }

    /** An id of {@link #average} bytes, as Chronicle Map's builders take a size: by a sample. */
    String sample() {
        return "x".repeat(average());
    }

    private static int utf8Length(String s) {
        int n = s.length();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                // 2 bytes up to U+07FF, else 3; a surrogate pair is 4 for its two chars
                n += c < 0x800 || Character.isSurrogate(c) ? 1 : 2;
            }
        }
        return n;
    }
}
