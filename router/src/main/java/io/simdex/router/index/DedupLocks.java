package io.simdex.router.index;

import io.grpc.Status;
import io.simdex.fingerprint.BlockTables;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Granted;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.simdex.router.shard.Fanout.pick;

/**
 * The bucket locks one Dedup call holds on the shards that own its buckets, from before its
 * probe until after its insert (the server's {@code BucketLocks} keeps them). Two documents
 * within the call's reach share a bucket key, so two calls that could keep near-duplicates of
 * each other exclude each other. Shards are locked one at a time in ascending order, so calls
 * cannot deadlock; locks carry a lease, so a router that dies blocks nobody for long.
 *
 * <p>Every decision is numbered: {@link #stamp} is the largest number on the locked keys, and
 * the call's decisions take the next ones, which it leaves on the keys when it releases them
 * ({@link #decided}). Replaying all decisions one at a time in that order gives the same ones.
 *
 * <p>A call stores its kept documents in several writes to several shards; one cut short
 * between them (its router killed, a shard failing) would leave a document in some tables and
 * not others: the next call near it would miss it and keep a near-duplicate, while the first
 * caller's retry finds it stored. So the call leaves its kept documents on their keys before
 * the first write ({@link #intend}) and unlocks with them done; a call that finds such intents
 * when it locks stores them before it decides ({@link #cutShort}), then {@link #settled}.
 *
 * <p>Leaving them is itself several writes, one per shard, and a call cut short among those
 * made none of its inserts: its document is not stored, and a call near it that locked a
 * shard the intent never reached has decided without it. Storing such a document later would
 * keep two near-duplicates. So a call that finds intents first locks every key of their
 * documents too, and stores only the documents whose intent it finds on every shard of their
 * keys; the others it drops. Each shard knows a call by a token of its own ({@link #tokenAt}),
 * as a node that serves several shards of the call keeps one intent per token, and one
 * shard's documents must not stand for another's.
 */
final class DedupLocks implements AutoCloseable {
    /** Shard-side bucket locks expire this long after being granted, unless the router is configured otherwise. */
    static final int DEFAULT_LEASE_MILLIS = 30_000;
    /** How long a Dedup waits for busy buckets before failing with ABORTED. */
    static final int WAIT_MILLIS = 10_000;
    /** Rounds of locking the keys of intents found: each finds intents left on the keys the last added, rarely any. */
    private static final int INTENT_ROUNDS = 8;

    private final ShardClient[] shards;
    private final Placement placement;
    private final String collection;
    private final int[] keys;
    private final int[][] byShard;
    private final boolean[] locked;
    /** The call's token; shard s knows it as {@link #tokenAt}(s). */
    private final long token;
    private final int leaseMillis;
    private final long started = System.nanoTime();
    private long stamp;
    private long released = -1;
    private Granted found = new Granted(0, List.of());
    /** Each shard's answer to the lock. */
    private final Granted[] grantedAt;
    /** What the intents found leave to do, once judged; null when none was found. */
    private CutShort cutShort;
    /** Intents found or left that are not known stored: the unlock keeps them pending. */
    private boolean outstanding;

    private DedupLocks(ShardClient[] shards, Placement placement, String collection, int[] keys, long token, int leaseMillis) {
        this.shards = shards;
        this.placement = placement;
        this.collection = collection;
        this.keys = keys;
        this.token = token;
        this.leaseMillis = leaseMillis;
        this.byShard = Fanout.group(keys.length, shards.length, i -> owner(keys[i]));
        this.locked = new boolean[shards.length];
        this.grantedAt = new Granted[shards.length];
    }

    /**
     * Locks every bucket key of {@code fps} within {@code reach}, and every key of the documents
     * of the intents found there ({@link #cutShort}); fails with ABORTED when they stay busy
     * (holding none then). The locks expire {@code leaseMillis} after each shard grants them.
     */
    static DedupLocks acquire(ShardClient[] shards, Placement placement, String collection, long[] fps, int reach, int leaseMillis) {
        int[] keys = bucketKeys(fps, reach);
        long token = ThreadLocalRandom.current().nextLong();
        for (int round = 1; ; round++) {
            DedupLocks locks = new DedupLocks(shards, placement, collection, keys, token, leaseMillis);
            locks.lockAll();
            if (locks.found.pending().isEmpty()) {
                return locks;
            }
            // Locks are taken in ascending shard order, so no two calls deadlock: keys the
            // intents add are taken in a new round, with the first ones, in that order.
            int[] wider;
            try {
                List<DedupIntents.Doc> docs = DedupIntents.decode(locks.found.pending());
                wider = locks.withKeysOf(docs);
                if (wider.length == keys.length) {
                    locks.judge(docs);
                    return locks;
                }
            } catch (RuntimeException e) {
                locks.close();
                throw e;
            }
            locks.close();
            if (round == INTENT_ROUNDS) {
                throw Status.ABORTED.withDescription("intents of Dedup calls cut short kept leading to more keys after " + round
                        + " rounds of locks; retry").asRuntimeException();
            }
            keys = wider;
        }
    }

    /** Locks this call's keys, shard after shard; on failure releases what it holds. */
    private void lockAll() {
        try {
            for (int s = 0; s < shards.length; s++) {
                if (byShard[s].length > 0) {
                    // Marked before the call: a replica set may hold some replicas' locks when it fails.
                    locked[s] = true;
                    grantedAt[s] = Fanout.join(shards[s].lockBuckets(collection, pick(keys, byShard[s]), tokenAt(s), leaseMillis, WAIT_MILLIS));
                    found = found.merge(grantedAt[s]);
                    // Found pending: kept until stored, also when a later shard's lock fails.
                    outstanding = !found.pending().isEmpty();
                }
            }
            stamp = found.stamp();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The locked keys and those of {@code docs}, ascending. */
    private int[] withKeysOf(List<DedupIntents.Doc> docs) {
        int[] all = Arrays.copyOf(keys, keys.length + docs.size() * keysPerFingerprint(BlockTables.MAX_DISTANCE + 1));
        int n = keys.length;
        for (DedupIntents.Doc d : docs) {
            n = keysOf(d.fp(), d.reach(), all, n);
        }
        return distinctBySort(Arrays.copyOf(all, n));
    }

    /**
     * Sorts {@code docs}, the documents of the intents found, every key of which this call
     * holds: those whose call left its intent on every shard of their keys are to be stored, the
     * others dropped.
     */
    private void judge(List<DedupIntents.Doc> docs) {
        List<Set<Long>> callsAt = new ArrayList<>(shards.length);
        for (Granted g : grantedAt) {
            callsAt.add(g == null ? Set.of() : DedupIntents.calls(g.pending()));
        }
        List<DedupIntents.Doc> whole = new ArrayList<>(docs.size());
        int[] k = new int[keysPerFingerprint(BlockTables.MAX_DISTANCE + 1)];
        for (DedupIntents.Doc d : docs) {
            int n = keysOf(d.fp(), d.reach(), k, 0);
            boolean everywhere = true;
            for (int i = 0; i < n && everywhere; i++) {
                everywhere = callsAt.get(owner(k[i])).contains(d.call());
            }
            if (everywhere) {
                whole.add(d);
            }
        }
        long calls = docs.stream().mapToLong(DedupIntents.Doc::call).distinct().count();
        cutShort = new CutShort(DedupIntents.batch(whole), (int) calls, docs.size() - whole.size());
    }

    /**
     * Documents that calls cut short decided to keep, left on every key of theirs: to be stored
     * before this call decides, as their calls would have. {@code calls}: how many calls left the
     * intents found; {@code dropped}: their documents whose intent some shard lacks (their calls
     * wrote nothing of them).
     */
    record CutShort(DedupIntents.Batch store, int calls, int dropped) {
    }

    /** What the intents found on the locked keys leave to do; null when none was found. */
    CutShort cutShort() {
        return cutShort;
    }

    /** The token by which shard s knows this call. */
    private long tokenAt(int s) {
        return token + s;
    }

    /** The largest decision number on the locked keys. */
    long stamp() {
        return stamp;
    }

    /**
     * The intents found are stored or dropped ({@link #cutShort}): drops them from each of
     * {@code nodes} (every node once). A node that does not answer keeps them, and whoever
     * locks there next judges them again (the same inserts).
     */
    void settled(ShardClient[] nodes) {
        long[] tokens = found.pending().stream().mapToLong(Granted.Intent::token).toArray();
        Fanout f = Fanout.start();
        for (ShardClient node : nodes) {
            f.add(node.settleIntents(collection, tokens));
        }
        try {
            f.await();
        } catch (RuntimeException e) {
            // Stored again by the next holder there, harmlessly.
        }
        outstanding = false;
    }

    /**
     * Leaves documents {@code items} of the call (of its {@code n} decisions) on their keys, each
     * on the keys of its fingerprint within {@code reach} (a call near it shares one), before the
     * first write. Fails with ABORTED, leaving nothing, when a lock was lost (its lease expired
     * and another call took it): the documents are then not stored.
     */
    void intend(int n, String[] ids, long[] fps, String[] stored, int[] items, int reach) {
        outstanding = true;
        long last = stamp + n;
        long[] keptFps = new long[items.length];
        for (int j = 0; j < items.length; j++) {
            keptFps[j] = fps[items[j]];
        }
        int[] all = bucketKeys(keptFps, reach);
        int[][] keysByShard = Fanout.group(all.length, shards.length, i -> owner(all[i]));
        int[][] docsOf = documentsByShard(keptFps, items, reach);
        Fanout f = Fanout.start();
        AtomicBoolean lost = new AtomicBoolean();
        for (int s = 0; s < shards.length; s++) {
            if (keysByShard[s].length > 0) {
                int[] mine = pick(all, keysByShard[s]);
                byte[] docs = DedupIntents.encode(token, reach, ids, fps, stored, docsOf[s]);
                f.add(shards[s].recordIntent(collection, mine, tokenAt(s), last, docs), held -> {
                    if (held < mine.length) {
                        lost.set(true);
                    }
                });
            }
        }
        f.await();
        if (lost.get()) {
            // Not one write was made: withdraw what was left, so that no later holder stores it.
            Fanout w = Fanout.start();
            for (int s = 0; s < shards.length; s++) {
                if (keysByShard[s].length > 0) {
                    w.add(shards[s].settleIntents(collection, new long[]{tokenAt(s)}));
                }
            }
            try {
                w.await();
                outstanding = false;
            } catch (RuntimeException e) {
                // Kept pending: judged by the next holder, which stores a document only where
                // its intent reached every shard of its keys (then no call near it missed it).
            }
            throw Status.ABORTED.withDescription("bucket locks expired before the documents were stored; retry").asRuntimeException();
        }
    }

    /** Per shard, the documents {@code items} (fingerprints {@code keptFps}) with a key there within {@code reach}, each once. */
    private int[][] documentsByShard(long[] keptFps, int[] items, int reach) {
        // (document, shard) pairs, seen[s] the last document paired with shard s; then grouped by shard.
        int[] pairDoc = new int[items.length * 4];
        int[] pairShard = new int[pairDoc.length];
        int pairs = 0;
        int[] seen = new int[shards.length];
        Arrays.fill(seen, -1);
        int[] keys = new int[keysPerFingerprint(reach)];
        for (int j = 0; j < items.length; j++) {
            keysOf(keptFps[j], reach, keys, 0);
            for (int key : keys) {
                int s = owner(key);
                if (seen[s] != j) {
                    seen[s] = j;
                    if (pairs == pairDoc.length) {
                        pairDoc = Arrays.copyOf(pairDoc, 2 * pairs);
                        pairShard = Arrays.copyOf(pairShard, 2 * pairs);
                    }
                    pairDoc[pairs] = items[j];
                    pairShard[pairs++] = s;
                }
            }
        }
        int[] shardOf = pairShard;
        int[][] pairsOf = Fanout.group(pairs, shards.length, i -> shardOf[i]);
        int[][] docsOf = new int[shards.length][];
        for (int s = 0; s < shards.length; s++) {
            docsOf[s] = pick(pairDoc, pairsOf[s]);
        }
        return docsOf;
    }

    /** Fails with ABORTED once half the lease is gone: the locks may be about to expire, and inserting then could race another router. */
    void checkLease() {
        if (System.nanoTime() - started > leaseMillis / 2 * 1_000_000L) {
            throw Status.ABORTED.withDescription("dedup took longer than half the lock lease; retry").asRuntimeException();
        }
    }

    /** The call's {@code n} decisions are made and stored: their numbers stay on the keys, their intents go. */
    void decided(int n) {
        released = stamp + n;
        outstanding = false;
    }

    private int owner(int key) {
        return placement.ownerOfBucket(key >>> BlockTables.BLOCK_BITS, key & (BlockTables.KEYS_PER_TABLE - 1));
    }

    /** Releases every lock taken; a shard that does not answer lets its lease free the keys. */
    @Override
    public void close() {
        long leave = released >= 0 ? released : stamp;
        Fanout f = Fanout.start();
        for (int s = 0; s < shards.length; s++) {
            if (locked[s]) {
                f.add(shards[s].unlockBuckets(collection, pick(keys, byShard[s]), tokenAt(s), leave, outstanding));
            }
        }
        try {
            f.await();
        } catch (RuntimeException e) {
            // The shard's lease frees the keys; the caller's outcome stands.
        }
    }

    /** Nibbles of a block: beyond distance 3 a block is also locked as each of them masked out. */
    private static final int NIBBLES = BlockTables.BLOCK_BITS / 4;
    private static final int NIBBLE_BITS = 4;

    /**
     * The distinct bucket keys a check-and-insert of {@code fps} within {@code reach} must lock,
     * ascending: each block's key, and beyond distance 3 also one key per nibble of the block,
     * {@link #masked} (5 keys a table, 20 a document, where the block and its 16 one-bit
     * neighbours took 68).
     *
     * <p>Why that excludes every pair it must: two documents within 3 have an equal block in
     * some table, so an equal key. Two within 7 have, in some table, blocks that are equal or
     * differ in one bit (four blocks differing in two bits or more differ in 8 at least); one
     * bit lies in one nibble j, and the blocks masked at j are equal. A masked key is a bucket
     * key too (a lock is a lock of its number, owned by that bucket's shard): sharing it with an
     * unrelated block only makes a call wait for another it did not need to, never miss one.
     */
    static int[] bucketKeys(long[] fps, int reach) {
        int[] keys = new int[fps.length * keysPerFingerprint(reach)];
        int n = 0;
        for (long fp : fps) {
            n = keysOf(fp, reach, keys, n);
        }
        return keys.length >= BITSET_FROM ? distinctByBitset(keys) : distinctBySort(keys);
    }

    /** Keys a batch has from which {@link #distinctByBitset} is used; below, a sort is cheaper than the bitset's 32 KB. */
    private static final int BITSET_FROM = 512;

    private static int[] distinctBySort(int[] keys) {
        Arrays.sort(keys);
        int distinct = 0;
        for (int i = 0; i < keys.length; i++) {
            if (i == 0 || keys[i] != keys[i - 1]) {
                keys[distinct++] = keys[i];
            }
        }
        return Arrays.copyOf(keys, distinct);
    }

    /**
     * The distinct keys ascending, through a bitset of every bucket key (2^18 bits): a Dedup of
     * 100 texts beyond distance 3 has 2,000 keys, and sorting them was 3% of a 20-word text's
     * Dedup CPU.
     */
    private static int[] distinctByBitset(int[] keys) {
        long[] set = new long[(BlockTables.TABLES << BlockTables.BLOCK_BITS) / Long.SIZE];
        for (int key : keys) {
            set[key >>> 6] |= 1L << key;
        }
        int distinct = 0;
        for (int w = 0; w < set.length; w++) {
            for (long bits = set[w]; bits != 0; bits &= bits - 1) {
                keys[distinct++] = w << 6 | Long.numberOfTrailingZeros(bits);
            }
        }
        return Arrays.copyOf(keys, distinct);
    }

    /** Bucket keys a fingerprint locks within {@code reach}, repeats included. */
    private static int keysPerFingerprint(int reach) {
        return BlockTables.TABLES * (reach > BlockTables.MAX_DISTANCE ? 1 + NIBBLES : 1);
    }

    /** Writes {@code fp}'s keys within {@code reach} (unsorted, maybe repeated) into {@code out} from {@code at}; the index after them. */
    private static int keysOf(long fp, int reach, int[] out, int at) {
        boolean masked = reach > BlockTables.MAX_DISTANCE;
        for (int t = 0; t < BlockTables.TABLES; t++) {
            int block = BlockTables.block(fp, t);
            out[at++] = BlockTables.bucketKey(t, block);
            for (int j = 0; masked && j < NIBBLES; j++) {
                out[at++] = BlockTables.bucketKey(t, masked(block, j));
            }
        }
        return at;
    }

    /**
     * {@code block} without its nibble j (bits 4j..4j+3), the 12 bits left closed up, under j in
     * the top 4 bits: equal for two blocks exactly when they differ in nibble j at most.
     */
    static int masked(int block, int j) {
        int shift = j * NIBBLE_BITS;
        int rest = block >>> (shift + NIBBLE_BITS) << shift | block & ((1 << shift) - 1);
        return j << (BlockTables.BLOCK_BITS - NIBBLE_BITS) | rest;
    }
}
