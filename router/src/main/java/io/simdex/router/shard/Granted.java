package io.simdex.router.shard;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A bucket lock's answer: the largest stamp on the keys, and the intents left pending on them
 * by holders that stopped short of storing what they had decided (the new holder stores them
 * first, see the server's {@code BucketLocks}).
 */
public record Granted(long stamp, List<Intent> pending) {
    /** What holder {@code token} was about to store, its decisions numbered up to {@code stamp}; {@code docs} as IndexRouter encodes them. */
    public record Intent(long token, long stamp, byte[] docs) {
    }

    /** Both answers as one: the larger stamp, the intents of both (each token once). */
    public Granted merge(Granted other) {
        if (other.pending.isEmpty() && pending.isEmpty()) {
            return new Granted(Math.max(stamp, other.stamp), List.of());
        }
        Map<Long, Intent> all = new LinkedHashMap<>();
        pending.forEach(i -> all.putIfAbsent(i.token(), i));
        other.pending.forEach(i -> all.putIfAbsent(i.token(), i));
        return new Granted(Math.max(stamp, other.stamp), List.copyOf(all.values()));
    }
}
