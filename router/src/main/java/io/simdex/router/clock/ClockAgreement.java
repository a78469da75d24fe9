package io.simdex.router.clock;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The time a set of node clock readings agree on, or why there is none.
 *
 * <p>Every reading is projected to one instant of the router's monotonic clock, so readings
 * differ only by the nodes' clock offsets and by each reading's uncertainty (half its round
 * trip). A reading agrees when it lies within {@code maxSkewMillis} plus its uncertainty of the
 * median of all readings. If the agreeing readings are a strict majority, the time is their
 * median and the others are outliers; otherwise there is no agreed time: two nodes that
 * disagree, or three that spread out, give no way to tell which clock is right. With at most a
 * minority of wrong clocks the median of all lies between two right ones, so it is at most
 * {@code maxSkewMillis} from each, which is why the test is against the median.
 */
public final class ClockAgreement {
    private ClockAgreement() {
    }

    /** One node's clock, projected to the common instant; {@code uncertaintyMillis} is half the call's round trip. */
    public record Reading(String node, long millis, long uncertaintyMillis) {
    }

    /**
     * @param millis   the agreed time at the common instant (meaningless unless {@link #agreed})
     * @param outliers readings that did not agree, each with its offset from the median in {@code offsets}
     * @param offsets  every reading's offset from the median of all, milliseconds, in reading order
     */
    public record Outcome(boolean agreed, long millis, List<Reading> readings, long[] offsets, List<Reading> outliers) {
        /** Each node with its offset from the median, e.g. {@code node-1 +0 ms, node-2 +300012 ms}. */
        public String describe() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < readings.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(readings.get(i).node()).append(offsets[i] >= 0 ? " +" : " ")
                        .append(offsets[i]).append(" ms");
            }
            return b.toString();
        }
    }

    /** The agreement of {@code readings} (not empty) within {@code maxSkewMillis}. */
    public static Outcome of(List<Reading> readings, long maxSkewMillis) {
        long median = median(readings);
        long[] offsets = new long[readings.size()];
        List<Reading> agreeing = new ArrayList<>();
        List<Reading> outliers = new ArrayList<>();
        for (int i = 0; i < readings.size(); i++) {
            Reading r = readings.get(i);
            offsets[i] = r.millis() - median;
            (Math.abs(offsets[i]) <= maxSkewMillis + r.uncertaintyMillis() ? agreeing : outliers).add(r);
        }
        boolean agreed = 2 * agreeing.size() > readings.size();
        return new Outcome(agreed, agreed ? median(agreeing) : 0, List.copyOf(readings), offsets, List.copyOf(outliers));
    }

    /** The median reading; of an even count, the mean of the middle two. */
    static long median(List<Reading> readings) {
        long[] sorted = readings.stream().sorted(Comparator.comparingLong(Reading::millis)).mapToLong(Reading::millis).toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : sorted[n / 2 - 1] + (sorted[n / 2] - sorted[n / 2 - 1]) / 2;
    }
}
