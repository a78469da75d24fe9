package io.simdex.router.crawl;

import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import net.openhft.hashing.LongTupleHashFunction;

import java.util.List;


/**
 * URL seen-sets per crawl job across the shards: "which of these URLs are new?", the filter a
 * crawler runs before fetching, as a Redis hash per job with an expiry would be.
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
        f.toOwners(shards, urls.length, i -> placement.ownerOfUrlHash(hashes[i]),
                (shard, group) -> shard.checkUrls(job, Fanout.pick(hashes, group), nowSeconds, nowSeconds + ttlSeconds, checkOnly), (group, flags) -> {
                    for (int i = 0; i < group.length; i++) {
                        fresh[group[i]] = flags[i];
                    }
                });
        f.await();
        return fresh;
    }

    /** Removes expired URLs on every shard; returns how many. */
    public long sweep(long nowSeconds) {
        long[] removed = {0};
        Fanout f = Fanout.start();
        f.toEach(nodes, node -> node.sweepUrls(nowSeconds), n -> removed[0] += n);
        f.await();
        return removed[0];
    }

    /** Forgets a job everywhere; true if any shard had it. */
    public boolean drop(String job) {
        boolean[] existed = {false};
        Fanout f = Fanout.start();
        f.toEach(nodes, node -> node.dropUrlJob(job), had -> existed[0] |= had);
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
