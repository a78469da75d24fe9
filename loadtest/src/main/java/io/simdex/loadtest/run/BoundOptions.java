package io.simdex.loadtest.run;

import io.simdex.loadtest.DurationConverter;
import picocli.CommandLine.Option;

import java.time.Duration;

/** How long, how many, how often: every run is bounded in time, optionally in count too. */
public final class BoundOptions {
    /** Longest single run accepted; the machine is shared. */
    static final Duration MAX_DURATION = Duration.ofMinutes(30);

    @Option(names = "--duration", defaultValue = "10s", converter = DurationConverter.class,
            description = "Length of each measured run, at most 30m (default: ${DEFAULT-VALUE}).")
    public Duration duration;

    @Option(names = "--requests", defaultValue = "0", description = "Stop each run after this many calls too; 0: time only (default: ${DEFAULT-VALUE}).")
    public long requests;

    @Option(names = "--warmup", defaultValue = "3s", converter = DurationConverter.class,
            description = "Unrecorded load before the first run, for the JIT (default: ${DEFAULT-VALUE}).")
    public Duration warmup;

    @Option(names = "--settle-cycles", defaultValue = "6",
            description = {"After a warm-up: at most this many short cycles of the measured path (every target: reset its",
                    "handling times, run up to 3 s, read them), ending at the first in which the generator's own JIT",
                    "compiled for under 3%% of the cycle; 0: none (default: ${DEFAULT-VALUE})."})
    public int settleCycles;

    @Option(names = "--runs", defaultValue = "1", description = "Measured runs; the report gives each and their median (default: ${DEFAULT-VALUE}).")
    public int runs;

    LoadLoop.Bound measured() {
        if (duration.isZero() || duration.isNegative() || duration.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException("--duration must be > 0 and <= 30m, was " + DurationConverter.format(duration));
        }
        if (runs < 1 || runs > 20) {
            throw new IllegalArgumentException("--runs must be 1..20, was " + runs);
        }
        if (settleCycles < 0 || settleCycles > 20) {
            throw new IllegalArgumentException("--settle-cycles must be 0..20, was " + settleCycles);
        }
        return new LoadLoop.Bound(requests, duration.toNanos());
    }

    LoadLoop.Bound warmup() {
        return new LoadLoop.Bound(0, warmup.toNanos());
    }
}
