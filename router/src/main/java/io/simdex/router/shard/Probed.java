package io.simdex.router.shard;

/**
 * A {@link ShardClient#probeResolving} answer: each part's matches, as probeMany answers them,
 * and the ids of the matches the shard resolved beside them ({@code ids[i]} belongs to
 * {@code resolved.fingerprints()[i]} in {@code resolved.generations()[i]}).
 */
public record Probed(Found[][] parts, Found resolved, Ids[] ids) {
    private static final Ids[] NO_IDS = new Ids[0];

    /** Matches without ids: the caller resolves them all. */
    public static Probed unresolved(Found[][] parts) {
        return new Probed(parts, Found.NONE, NO_IDS);
    }
}
