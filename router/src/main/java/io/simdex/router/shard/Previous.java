package io.simdex.router.shard;

/**
 * What ids were bound to before a bind or unbind: {@code present[i]} says whether
 * {@code previous[i]} (a fingerprint, in generation {@code generation[i]}) means anything.
 */
public record Previous(boolean[] present, long[] previous, long[] generation) {
    /** No id bound yet, for {@code n} ids: parts are scattered into it. */
    public Previous(int n) {
        this(new boolean[n], new long[n], new long[n]);
    }
}
