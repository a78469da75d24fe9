package io.simdex.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Locks on (collection, bucket key) held by a router's token across several RPCs: the shard's
 * half of race-free check-and-insert.
 *
 * <h2>Why this makes Dedup serial</h2>
 * Two documents within distance 3 share a bucket key (see {@code BlockTables}), so their
 * routers must both hold that key's lock, on the shard that owns it, around their probe and
 * insert: their critical sections cannot overlap. Routers take their shards in ascending order
 * and each shard takes keys in ascending order, a global order, so no two routers deadlock.
 *
 * <h2>Stamps</h2>
 * Every key carries the stamp of the last critical section that held it. A lock returns the
 * largest stamp of its keys; the router numbers its documents after it and releases the keys
 * with the last number. A document therefore gets a number above every document it could have
 * collided with before it: replaying all decisions in stamp order reproduces them. Stamps start
 * from the wall clock in microseconds when the shard starts, so they keep increasing across a
 * restart. Stamps are kept per slot, not per key: a slot's stamp is the largest of the keys
 * that share it, so a lock may return a larger stamp than its keys' own, which keeps the
 * order above (numbers only need to exceed every earlier colliding document's). A key's slot
 * is its low 12 bits: 4,096 slots (32 KB) stay in a core's cache, where a slot per bucket key
 * (2 MB) missed it on each key of a lock and again of its release. (As a boxed {@code HashMap}
 * of every key ever locked, {@code merge} had 13% of a batched Dedup's JFR samples at 10M.)
 *
 * <h2>Leases</h2>
 * A lock expires after its lease, so a router that dies holding locks blocks others only that
 * long; a router aborts rather than insert once half its lease has passed. A lock call still
 * waiting when its router dies ends then too ({@link #grant}'s {@code abandoned}), rather than
 * take the keys for nobody once they come free.
 *
 * <h2>Intents</h2>
 * A holder stores its kept documents in several steps on several shards; one that dies or
 * fails between them leaves a document findable in some tables and not others, which the next
 * holder would miss (and keep a near-duplicate of it) while the first caller's retry finds it
 * stored. So before its first write a holder leaves its documents here ({@link #record}, kept
 * by token while it holds every key); unlocking with them done drops them, and anything else
 * leaves them pending: the next lock of any of its keys (expired, or released unfinished)
 * returns them, and that holder stores them before deciding, completing the decisions made
 * under the keys before it (those whose intent reached every shard of their keys: the router's
 * {@code DedupLocks} judges), then {@link #settle}s them on every node. Intents are kept by
 * token, so a router gives each shard a token of its own: a node serving two shards of a call
 * keeps both intents. A key passes on the
 * tokens it inherited, so intents survive a chain of holders that each stop short. Nothing of
 * this costs a key anything while no call fails: an intent is one map entry per call. A replica
 * that missed the unlock keeps the intent: once it has caught up it settles those its peers no
 * longer hold ({@link StaleIntents}). One that missed the record takes it from its peers then
 * ({@link IntentAdoption}, {@link #adopt}).
 */
final class BucketLocks {
    private static final long[] NONE = new long[0];

    /** Key -> holder token, lease end, and the tokens whose intents were pending when it took the key. */
    private final HeldKeys held = new HeldKeys();
    /** By token: intents recorded and neither done nor settled, with the keys each was recorded on. */
    private final Map<Long, IntentLog.Entry> intents = new HashMap<>();
    /** Tokens done or settled lately, pending here or not: an intent a peer still lists for one of them is not taken ({@link #adopt}). */
    private final Set<Long> ended = new LinkedHashSet<>();
    private static final int ENDED_KEPT = 1 << 16;
    private static final int STAMP_SLOTS = 1 << 12;
    private final long startStamp = System.currentTimeMillis() * 1000;
    private final long[] stamps = new long[STAMP_SLOTS];

    /** Where intents are kept across a restart; null: in memory only. */
    private final IntentLog log;

    BucketLocks() {
        this(null);
    }

    /**
     * Locks whose intents {@code log} keeps: those it held, not done, are pending again, on
     * keys free for their next holder.
     */
    BucketLocks(IntentLog log) {
        this.log = log;
        Arrays.fill(stamps, startStamp);
        if (log != null) {
            long now = System.nanoTime();
            for (IntentLog.Entry e : log.pending()) {
                intents.put(e.intent().token(), e);
                for (long key : e.keys()) {
                    if (held.find(key) < 0) {
                        held.add(key, e.intent().token(), now, NONE);
                    }
                }
            }
        }
    }

    /** {@link #grant(long[], long, long, long, BooleanSupplier)} for a caller that waits for the answer whatever happens. */
    synchronized LockGrant grant(long[] keys, long token, long leaseMillis, long waitMillis) throws InterruptedException {
        return grant(keys, token, leaseMillis, waitMillis, () -> false);
    }

    /**
     * Locks every key (ascending order expected) for {@code token}, waiting up to
     * {@code waitMillis}: the largest stamp of the keys and the intents pending on them, or
     * {@link LockGrant#BUSY} on timeout (then nothing stays locked). Re-locking keys the token
     * holds renews them.
     *
     * <p>{@code abandoned} says the caller is gone (a router killed, or its call cancelled):
     * checked before each wait, after each ({@link #wakeWaiters} ends one early), and once every
     * key is taken; then the keys taken are released, their intents kept pending, and the answer
     * is BUSY. A grant that went on waiting for a router that died would take the keys when they
     * came free, and hold them, for nobody, a whole lease more.
     */
    synchronized LockGrant grant(long[] keys, long token, long leaseMillis, long waitMillis, BooleanSupplier abandoned)
            throws InterruptedException {
        // The clock is read once, and again only after a wait: a read per key was half of a
        // 68-key lock's time. A lease taken a little later than `now` ends a little earlier than
        // it would; an expiry judged by it is judged late, never early.
        long now = System.nanoTime();
        long deadline = now + waitMillis * 1_000_000;
        long maxStamp = startStamp;
        Set<Long> inherited = null;
        for (int i = 0; i < keys.length; i++) {
            while (true) {
                int h = held.find(keys[i]);
                if (h < 0 || held.token(h) == token || held.expiresAtNanos(h) - now <= 0) {
                    long[] carried = h < 0 ? NONE : held.token(h) == token ? held.inherited(h) : pendingOf(h);
                    if (h < 0) {
                        held.add(keys[i], token, now + leaseMillis * 1_000_000, carried);
                    } else {
                        held.set(h, token, now + leaseMillis * 1_000_000, carried);
                    }
                    if (carried.length > 0) {
                        inherited = inherited == null ? new LinkedHashSet<>() : inherited;
                        for (long t : carried) {
                            inherited.add(t);
                        }
                    }
                    break;
                }
                long left = Math.min(deadline - now, held.expiresAtNanos(h) - now);
                if (deadline - now <= 0 || abandoned.getAsBoolean()) {
                    release(keys, i, token);
                    return LockGrant.BUSY;
                }
                wait(Math.max(1, left / 1_000_000));
                now = System.nanoTime();
            }
            maxStamp = Math.max(maxStamp, stamps[slot(keys[i])]);
        }
        if (abandoned.getAsBoolean()) {
            release(keys, keys.length, token);
            return LockGrant.BUSY;
        }
        if (inherited == null) {
            return new LockGrant(maxStamp, List.of());
        }
        List<LockGrant.Intent> pending = new ArrayList<>(inherited.size());
        for (long t : inherited) {
            IntentLog.Entry e = intents.get(t);
            if (e != null) {
                pending.add(e.intent());
                maxStamp = Math.max(maxStamp, e.intent().stamp());
            }
        }
        return new LockGrant(maxStamp, pending);
    }

    /** Wakes every grant waiting for a key, so that each checks at once whether its caller is gone. */
    synchronized void wakeWaiters() {
        notifyAll();
    }

    /** {@link #grant} without the intents: the largest stamp, or -1 on timeout. */
    synchronized long lock(long[] keys, long token, long leaseMillis, long waitMillis) throws InterruptedException {
        return grant(keys, token, leaseMillis, waitMillis).stamp();
    }

    /** The tokens with intents pending on the key held in slot {@code h}: what its holder inherited, and its own. */
    private long[] pendingOf(int h) {
        int n = 0;
        long[] inherited = held.inherited(h);
        long holder = held.token(h);
        long[] out = new long[inherited.length + 1];
        for (long t : inherited) {
            if (intents.containsKey(t)) {
                out[n++] = t;
            }
        }
        if (intents.containsKey(holder)) {
            out[n++] = holder;
        }
        return n == 0 ? NONE : Arrays.copyOf(out, n);
    }

    /**
     * Records {@code intent} for its token if the token holds every key with a lease not yet
     * expired; returns how many it holds (all of them, or nothing was recorded).
     */
    synchronized int record(long[] keys, LockGrant.Intent intent) {
        long now = System.nanoTime();
        int holding = 0;
        for (long key : keys) {
            int h = held.find(key);
            holding += h >= 0 && held.token(h) == intent.token() && held.expiresAtNanos(h) - now > 0 ? 1 : 0;
        }
        if (holding == keys.length) {
            if (log != null) {
                log.intent(intent, keys);
            }
            intents.put(intent.token(), new IntentLog.Entry(intent, keys.clone()));
        }
        return holding;
    }

    /**
     * Takes {@code intent}, pending on a peer that holds the same keys, as pending here on
     * {@code keys}: this node missed its record (it was behind). Its keys hand it on to their
     * next holder as if its holder had stopped short here: a free key is left expired under its
     * token, a held one inherits it. False if it is pending here already, or if its token was
     * done or settled here lately (the peer has not seen that yet).
     */
    synchronized boolean adopt(LockGrant.Intent intent, long[] keys) {
        long token = intent.token();
        if (intents.containsKey(token) || ended.contains(token)) {
            return false;
        }
        if (log != null) {
            log.intent(intent, keys);
        }
        intents.put(token, new IntentLog.Entry(intent, keys.clone()));
        long now = System.nanoTime();
        for (long key : keys) {
            int h = held.find(key);
            if (h < 0) {
                held.add(key, token, now, NONE);
            } else if (held.token(h) != token) {
                long[] inherited = held.inherited(h);
                if (Arrays.stream(inherited).noneMatch(t -> t == token)) {
                    long[] more = Arrays.copyOf(inherited, inherited.length + 1);
                    more[inherited.length] = token;
                    held.set(h, held.token(h), held.expiresAtNanos(h), more);
                }
            }
        }
        notifyAll();
        return true;
    }

    /** The intents pending here, with their keys, but those of {@code except}. */
    synchronized List<IntentLog.Entry> records(long[] except) {
        Set<Long> skip = new java.util.HashSet<>();
        for (long t : except) {
            skip.add(t);
        }
        List<IntentLog.Entry> out = new ArrayList<>();
        intents.forEach((token, e) -> {
            if (!skip.contains(token)) {
                out.add(new IntentLog.Entry(e.intent(), e.keys().clone()));
            }
        });
        return out;
    }

    /** Drops the intents of {@code tokens}: their documents are stored. Returns how many were pending. */
    synchronized int settle(long[] tokens) {
        int dropped = 0;
        for (long t : tokens) {
            dropped += done(t) ? 1 : 0;
        }
        return dropped;
    }

    /**
     * Releases the keys {@code token} holds, recording {@code stamp} on each. Unless
     * {@code keepPending}, the token's intent is done; else its keys keep what is pending on them
     * (its intent, what it inherited) for their next holder.
     */
    synchronized int unlock(long[] keys, long token, long stamp, boolean keepPending) {
        int released = 0;
        long now = System.nanoTime();
        for (long key : keys) {
            int h = held.find(key);
            if (h >= 0 && held.token(h) == token) {
                released++;
                long[] inherited = held.inherited(h);
                long[] pending = keepPending ? inherited : stillPending(inherited);
                if (pending.length > 0 || keepPending && intents.containsKey(token)) {
                    held.set(h, token, now, pending); // expired: free, with its pending
                } else {
                    held.remove(key);
                }
            }
            int slot = slot(key);
            stamps[slot] = Math.max(stamps[slot], stamp);
        }
        if (!keepPending) {
            done(token);
        }
        notifyAll();
        return released;
    }

    /**
     * Of the tokens a key carries, those still pending: a holder done with its keys settled what
     * it inherited at its grant, so these are intents taken from a peer since ({@link #adopt}),
     * which the key keeps for its next holder.
     */
    private long[] stillPending(long[] inherited) {
        if (inherited.length == 0) {
            return NONE;
        }
        return Arrays.stream(inherited).filter(intents::containsKey).toArray();
    }

    /** Drops the intent of {@code token}, if any (and from the log, which starts over when none is left). */
    private boolean done(long token) {
        if (ended.add(token) && ended.size() > ENDED_KEPT) {
            java.util.Iterator<Long> oldest = ended.iterator();
            oldest.next();
            oldest.remove();
        }
        if (intents.remove(token) == null) {
            return false;
        }
        if (log != null) {
            log.done(token);
            if (intents.isEmpty()) {
                log.empty();
            }
        }
        return true;
    }

    /** With FSYNC durability, puts the intents recorded so far on stable storage (outside the monitor: others lock meanwhile). */
    void forceIntents() {
        if (log != null) {
            log.force();
        }
    }

    /** {@link #unlock(long[], long, long, boolean)} with the token's intent done. */
    synchronized int unlock(long[] keys, long token, long stamp) {
        return unlock(keys, token, stamp, false);
    }

    /** Keys held now, by any token (expired leases included until their keys are locked or released). */
    synchronized int held() {
        return held.size();
    }

    /** Intents recorded and neither done nor settled. */
    synchronized int intents() {
        return intents.size();
    }

    /** The tokens of the intents recorded and neither done nor settled. */
    synchronized long[] pendingTokens() {
        return intents.keySet().stream().mapToLong(Long::longValue).toArray();
    }

    /** Those of {@code tokens} whose intents are pending. */
    synchronized long[] pendingAmong(long[] tokens) {
        return Arrays.stream(tokens).filter(intents::containsKey).toArray();
    }

    private static int slot(long key) {
        return (int) key & (STAMP_SLOTS - 1);
    }

    private void release(long[] keys, int count, long token) {
        unlock(Arrays.copyOf(keys, count), token, startStamp, true);
    }
}
