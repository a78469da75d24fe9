package io.simdex.server;

import java.util.List;

/**
 * A bucket lock's answer ({@link BucketLocks}): the largest stamp on the keys, or -1 when they
 * stayed busy, and the intents pending on them, each once.
 */
public record LockGrant(long stamp, List<Intent> pending) {
    static final LockGrant BUSY = new LockGrant(-1, List.of());

    /** What the holder {@code token} was about to store, its decisions numbered up to {@code stamp}; {@code docs} is the router's encoding. */
    public record Intent(long token, long stamp, byte[] docs) {
    }
}
