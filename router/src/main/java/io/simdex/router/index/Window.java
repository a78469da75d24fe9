package io.simdex.router.index;

import java.time.Duration;
import java.time.Instant;

/**
 * Which time generations of a collection are live at an instant, and which one takes writes.
 *
 * <p>Generation g covers [g*G, (g+1)*G) seconds since the epoch. It is live while its end is
 * newer than now - retention, so an entry is found for at least the retention window and at
 * most one generation longer; a generation that is not live is never probed, even before the
 * sweeper deletes it. Without retention everything lives in generation 0.
 *
 * @param current the generation writes go to
 * @param live    the generations reads search, oldest first (always ends with current)
 */
public record Window(long current, long[] live) {
    public static final Window FOREVER = new Window(0, new long[]{0});

    /** The window at {@code now} for {@code retention} in generations of {@code generation}; zero retention: {@link #FOREVER}. */
    public static Window at(Instant now, Duration retention, Duration generation) {
        if (retention.isZero()) {
            return FOREVER;
        }
        long g = generation.toSeconds();
        long t = now.getEpochSecond();
        long current = Math.floorDiv(t, g);
        long first = Math.floorDiv(t - retention.toSeconds(), g);
        long[] live = new long[(int) (current - first + 1)];
        for (int i = 0; i < live.length; i++) {
            live[i] = first + i;
        }
        return new Window(current, live);
    }

    public long oldest() {
        return live[0];
    }
}
