package io.simdex.loadtest;

import picocli.CommandLine.ITypeConverter;

import java.time.Duration;

/** Parses "250ms", "10s", "3m", "1h" (one number, one unit), the way ghz and Go write durations. */
public final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        String v = value.strip();
        int unitAt = 0;
        while (unitAt < v.length() && (Character.isDigit(v.charAt(unitAt)) || v.charAt(unitAt) == '.')) {
            unitAt++;
        }
        if (unitAt == 0 || unitAt == v.length()) {
            throw new IllegalArgumentException("duration must be a number and a unit (ms, s, m, h), was \"" + value + "\"");
        }
        double n = Double.parseDouble(v.substring(0, unitAt));
        double nanos = switch (v.substring(unitAt)) {
            case "ms" -> n * 1e6;
            case "s" -> n * 1e9;
            case "m" -> n * 60e9;
            case "h" -> n * 3600e9;
            default -> throw new IllegalArgumentException("unknown duration unit in \"" + value + "\": use ms, s, m or h");
        };
        return Duration.ofNanos((long) nanos);
    }

    /** "1.5s", "250ms": the inverse, for reports. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
