package io.simdex.router;

import net.openhft.hashing.LongTupleHashFunction;

import java.util.List;


/**
 * URL seen-sets per crawl job across the shards: "which of these URLs are new?", the filter a
 * crawler runs before fetching (the seeds keep it in a Redis hash per job with an expiry).
 * A URL is placed by its 128-bit hash, so each URL's check-and-add is atomic on its shard.
 */
public final class SeenUrls {
    private static final LongTupleHashFunction URL_HASH = LongTupleHashFunction.xx128();

    private final ShardClient[] shards;
    private final Placement placement;
    private final ShardClient[] nodes;

    /** @param nodes every node once, for sweeps and drops (the shards themselves when they are not replicated) */
    public SeenUrls(List<? extends ShardClient> shards, Placement placement, List<? extends ShardClient> nodes) {
        this.shards = shards.toArray(new ShardClient[0]);
        this.placement = placement;
        this.nodes = nodes.toArray(new ShardClient[0]);
    }

    /**
     * For each URL, true when the job had not seen it (or its entry expired) at {@code nowSeconds};
     * unless {@code checkOnly}, every URL is recorded until {@code nowSeconds + ttlSeconds}. A URL
     * repeated within the call is new at most once.
     */
    public boolean[] check(String job, String[] urls, long nowSeconds, long ttlSeconds, boolean checkOnly) {
        byte[][] hashes = new byte[urls.length][];
        for (int i = 0; i < urls.length; i++) {
            long[] h = URL_HASH.hashChars(urls[i]);
            hashes[i] = toBytes(h);
        }
        boolean[] fresh = new boolean[urls.length];
        Fanout f = Fanout.start();
        int[][] groups = Fanout.group(urls.length, shards.length, i -> placement.ownerOfUrlHash(hashes[i]));
        for (int s = 0; s < shards.length; s++) {
            int[] group = groups[s];
            if (group.length > 0) {
                byte[][] part = new byte[group.length][];
                for (int i = 0; i < group.length; i++) {
                    part[i] = hashes[group[i]];
                }
                f.add(shards[s].checkUrls(job, part, nowSeconds, nowSeconds + ttlSeconds, checkOnly), flags -> {
                    for (int i = 0; i < group.length; i++) {
                        fresh[group[i]] = flags[i];
                    }
                });
            }
        }
        f.await();
        return fresh;
    }

    /** Removes expired URLs on every shard; returns how many. */
    public long sweep(long nowSeconds) {
        Fanout f = Fanout.start();
        long[] removed = {0};
        for (ShardClient shard : nodes) {
            f.add(shard.sweepUrls(nowSeconds), n -> {
                synchronized (removed) {
                    removed[0] += n;
                }
            });
        }
        f.await();
        return removed[0];
    }

    /** Forgets a job everywhere; true if any shard had it. */
    public boolean drop(String job) {
        Fanout f = Fanout.start();
        boolean[] existed = {false};
        for (ShardClient shard : nodes) {
            f.add(shard.dropUrlJob(job), had -> {
                synchronized (existed) {
                    existed[0] |= had;
                }
            });
        }
        f.await();
        return existed[0];
    }

    private static byte[] toBytes(long[] h) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (h[0] >>> (8 * i));
            b[8 + i] = (byte) (h[1] >>> (8 * i));
        }
        return b;
    }
}
