package io.simdex.server;

/**
 * The keys {@link BucketLocks} holds: key -> (token, lease end, inherited tokens), in parallel
 * arrays with open addressing (linear probing, deletion by backward shift).
 *
 * <p>Why not a {@code HashMap<Long, Held>}: a Dedup of 100 short texts locks and releases about
 * 2,000 keys, each a boxed key and a record allocated and reached through the map's nodes. With
 * that map and a slot per bucket key for the stamps, the shards' lock calls took 9.5% of the
 * CPU of a 60-word text's Dedup; with this and {@link BucketLocks}' 4,096 stamp slots, 5.7%
 * (async-profiler, {@code dedup-cpu --words 60 --modes on --rounds 3000}). It never shrinks: it
 * keeps the room of the most keys held at once, which later calls reuse. Not thread-safe: its
 * owner's monitor guards it.
 */
final class HeldKeys {
    private static final long[] NONE = new long[0];
    private static final int MIN_CAPACITY = 64;

    private long[] keys;
    private long[] tokens;
    private long[] expires;
    private long[][] inherited;
    /** Slot in use; keys are any long, so no key value can mark a free slot. */
    private boolean[] used;
    private int size;

    HeldKeys() {
        allocate(MIN_CAPACITY);
    }

    /** Keys held (expired leases included until their keys are locked or released). */
    int size() {
        return size;
    }

    /** The slot of {@code key}, or -1 if it is not held. */
    int find(long key) {
        int mask = keys.length - 1;
        for (int i = home(key, mask); used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return i;
            }
        }
        return -1;
    }

    long token(int slot) {
        return tokens[slot];
    }

    long expiresAtNanos(int slot) {
        return expires[slot];
    }

    long[] inherited(int slot) {
        return inherited[slot];
    }

    /** Sets the holder of the key in {@code slot} (from {@link #find}, with no add or remove since). */
    void set(int slot, long token, long expiresAtNanos, long[] carried) {
        tokens[slot] = token;
        expires[slot] = expiresAtNanos;
        inherited[slot] = carried.length == 0 ? NONE : carried;
    }

    /** Holds {@code key}, which is not held ({@link #find} said so): one probe of the table, not two. */
    void add(long key, long token, long expiresAtNanos, long[] carried) {
        if (2 * (size + 1) > keys.length) {
            rehash(keys.length * 2);
        }
        int mask = keys.length - 1;
        int slot = home(key, mask);
        while (used[slot]) {
            slot = (slot + 1) & mask;
        }
        used[slot] = true;
        keys[slot] = key;
        size++;
        set(slot, token, expiresAtNanos, carried);
    }

    /** Stops holding {@code key}, if it is held. */
    void remove(long key) {
        int slot = find(key);
        if (slot < 0) {
            return;
        }
        int mask = keys.length - 1;
        // Backward shift: move each later entry of the run into the hole if its home allows it,
        // so that every entry stays reachable from its home without tombstones.
        int hole = slot;
        for (int i = (hole + 1) & mask; used[i]; i = (i + 1) & mask) {
            int home = home(keys[i], mask);
            if (((i - home) & mask) >= ((i - hole) & mask)) {
                move(i, hole);
                hole = i;
            }
        }
        used[hole] = false;
        inherited[hole] = null;
        size--;
    }

    private void move(int from, int to) {
        keys[to] = keys[from];
        tokens[to] = tokens[from];
        expires[to] = expires[from];
        inherited[to] = inherited[from];
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        long[] oldTokens = tokens;
        long[] oldExpires = expires;
        long[][] oldInherited = inherited;
        boolean[] oldUsed = used;
        allocate(capacity);
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldUsed[i]) {
                add(oldKeys[i], oldTokens[i], oldExpires[i], oldInherited[i]);
            }
        }
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        tokens = new long[capacity];
        expires = new long[capacity];
        inherited = new long[capacity][];
        used = new boolean[capacity];
    }

    /** A key's first slot: keys differ in their low bits (bucket keys) and high bits (collections), so both are mixed in. */
    private static int home(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ h >>> 32) & mask;
    }
}
