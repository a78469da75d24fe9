package io.simdex.router.crawl;

import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;

import java.util.List;

import static io.simdex.router.shard.Fanout.pick;

/**
 * Exact content across the shards: content hash -> fingerprint, per collection and generation,
 * at the shard that owns the hash. The fast path before SimHash: a text whose normalised form
 * was stored before has that fingerprint (ContentHash's normal form is the one SimHash
 * reads), so its SimHash need not be computed again. An entry left behind by a deleted
 * document still names the right fingerprint, so entries are never wrong, only unused.
 */
public final class ContentIndex {
    private final ShardClient[] shards;
    private final Placement placement;

    public ContentIndex(List<? extends ShardClient> shards, Placement placement) {
        this.shards = shards.toArray(new ShardClient[0]);
        this.placement = placement;
    }

    /** 16 bytes: the content hash as the shards key it. */
    public static byte[] key(ContentHash h) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (h.high() >>> (56 - 8 * i));
            b[8 + i] = (byte) (h.low() >>> (56 - 8 * i));
        }
        return b;
    }

    /** For each key, the fingerprint recorded in the window ({@code found[i]} says whether there was one). */
    public long[] lookup(String c, long[] generations, byte[][] keys, boolean[] found) {
        long[] fps = new long[keys.length];
        Fanout f = Fanout.start();
        f.toOwners(shards, keys.length, i -> owner(keys[i]), (shard, group) -> shard.lookupContent(c, generations, pick(keys, group)),
                (group, r) -> {
                    for (int i = 0; i < group.length; i++) {
                        found[group[i]] = r.generations()[i] != -1;
                        fps[group[i]] = r.fingerprints()[i];
                    }
                });
        f.await();
        return fps;
    }

    /** Records key -> fingerprint in the window's current generation. */
    public void record(String c, long generation, byte[][] keys, long[] fps) {
        Fanout f = Fanout.start();
        f.toOwners(shards, keys.length, i -> owner(keys[i]), (shard, group) -> shard.recordContent(c, generation, pick(keys, group), pick(fps, group)));
        f.await();
    }

    private int owner(byte[] key) {
        return placement.ownerOfContentHash(key);
    }

}
