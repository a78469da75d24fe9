package io.simdex.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BucketLocksTest {
    private static final long LONG_LEASE = 600_000;
    /** Keys as ShardNode makes them: a collection's salt, a bucket key below. */
    private static final long SALT = 0x5DEECE66DL << 20;

    @Test
    void lockAndUnlock_randomTokensAndKeys_holdExactlyWhatAMapModelHolds() throws InterruptedException {
        BucketLocks locks = new BucketLocks();
        Map<Long, Long> model = new HashMap<>();
        Random random = new Random(7);
        long[] tokens = {11, -3, 1L << 40, 0};
        // Batches of up to 40 of 3,000 keys, locked and released by 4 tokens; a lock that meets a
        // key of another token fails at once (no wait).
        for (int step = 0; step < 20_000; step++) {
            long token = tokens[random.nextInt(tokens.length)];
            long[] keys = random.longs(1 + random.nextInt(40), 0, 3_000).map(k -> SALT ^ k).sorted().distinct().toArray();
            if (random.nextInt(3) > 0) {
                long stamp = locks.lock(keys, token, LONG_LEASE, 0);
                int busy = firstBusy(model, keys, token);
                if (busy < 0) {
                    assertTrue(stamp >= 0, "step " + step);
                    for (long k : keys) {
                        model.put(k, token);
                    }
                } else {
                    assertEquals(-1, stamp, "step " + step);
                    for (int i = 0; i < busy; i++) {
                        model.remove(keys[i], token); // a failed lock releases the keys it passed
                    }
                }
            } else {
                int released = locks.unlock(keys, token, step);
                int expected = 0;
                for (long k : keys) {
                    expected += model.remove(k, token) ? 1 : 0;
                }
                assertEquals(expected, released, "step " + step);
            }
            assertEquals(model.size(), locks.held(), "step " + step);
        }
        for (Map.Entry<Long, Long> e : model.entrySet()) {
            // Each held key is busy for every other token, and still its holder's.
            assertEquals(-1, locks.lock(new long[] {e.getKey()}, e.getValue() + 1, LONG_LEASE, 0));
            assertEquals(1, locks.unlock(new long[] {e.getKey()}, e.getValue(), 0));
        }
        assertEquals(0, locks.held());
    }

    /** Index of the first key held by another token, or -1. */
    private static int firstBusy(Map<Long, Long> model, long[] keys, long token) {
        for (int i = 0; i < keys.length; i++) {
            Long holder = model.get(keys[i]);
            if (holder != null && holder != token) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void lock_returnsTheLargestStampReleasedOnItsKeys() throws InterruptedException {
        BucketLocks locks = new BucketLocks();
        long[] a = {SALT ^ 1, SALT ^ 2};
        long start = locks.lock(a, 1, LONG_LEASE, 0);
        locks.unlock(new long[] {SALT ^ 1}, 1, start + 10);
        locks.unlock(new long[] {SALT ^ 2}, 1, start + 20);
        assertEquals(start + 20, locks.lock(new long[] {SALT ^ 1, SALT ^ 2, SALT ^ 3}, 2, LONG_LEASE, 0));
        assertEquals(start + 10, locks.lock(new long[] {SALT ^ 1}, 2, LONG_LEASE, 0));
    }

    @Test
    void lock_ofAnExpiredLease_takesTheKey() throws InterruptedException {
        BucketLocks locks = new BucketLocks();
        long[] keys = {SALT ^ 5};
        assertTrue(locks.lock(keys, 1, 0, 0) >= 0); // a lease of 0 ms has ended when it starts
        assertTrue(locks.lock(keys, 2, LONG_LEASE, 0) >= 0);
        assertEquals(0, locks.unlock(keys, 1, 0));
        assertEquals(1, locks.unlock(keys, 2, 0));
    }

    @Test
    void lock_ofAHeldKey_waitsForItsRelease() throws Exception {
        BucketLocks locks = new BucketLocks();
        long[] keys = {SALT ^ 9, SALT ^ 10};
        long first = locks.lock(keys, 1, LONG_LEASE, 0);
        CompletableFuture<Long> second = CompletableFuture.supplyAsync(() -> {
            try {
                return locks.lock(keys, 2, LONG_LEASE, 60_000);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        locks.unlock(keys, 1, first + 100);
        // Whenever it got them, it got them after the release, so it saw its stamp.
        assertEquals(first + 100, second.get(60, TimeUnit.SECONDS));
        assertEquals(2, locks.unlock(keys, 2, 0));
    }

    @Test
    void lock_forACallerGone_busy_holdsNothing_leavesInheritedIntentsPending() throws InterruptedException {
        BucketLocks locks = new BucketLocks();
        long[] keys = {SALT ^ 7, SALT ^ 8};
        long stamp = locks.lock(keys, 1, LONG_LEASE, 0);
        assertEquals(2, locks.record(keys, new LockGrant.Intent(1, stamp + 1, new byte[]{9})));
        locks.unlock(keys, 1, stamp + 1, true); // cut short: its keys free, its intent pending on them

        assertEquals(-1, locks.grant(keys, 2, LONG_LEASE, 0, () -> true).stamp(), "free keys, but nobody to take them for");
        // Nothing taken: another token takes them at once, and the intent is handed on to it.
        LockGrant next = locks.grant(keys, 3, LONG_LEASE, 0);
        assertTrue(next.stamp() >= 0);
        assertEquals(List.of(1L), next.pending().stream().map(LockGrant.Intent::token).toList(), "the intent is still handed on");
    }

    @Test
    void intents_recordedOnlyWhileHeld_pendingAfterAnUnfinishedUnlockOrExpiry_passedAlong_goneWhenDoneOrSettled() throws InterruptedException {
        BucketLocks locks = new BucketLocks();
        long[] keys = {SALT ^ 1, SALT ^ 2};
        long start = locks.lock(keys, 1, LONG_LEASE, 0);
        LockGrant.Intent one = new LockGrant.Intent(1, start + 5, new byte[]{1});
        assertEquals(0, locks.record(keys, new LockGrant.Intent(2, start + 5, new byte[]{2})), "another token's keys");
        assertEquals(2, locks.record(keys, one));
        locks.unlock(keys, 1, start, true);

        // The next holder of either key finds it, numbered after it.
        LockGrant second = locks.grant(new long[]{SALT ^ 2, SALT ^ 3}, 3, 0, 0);
        assertEquals(List.of(one), second.pending());
        assertEquals(start + 5, second.stamp());
        // Its lease ended at once, unfinished: the holder after it finds the intent still pending,
        // through key 1 (token 1's) and key 2 (passed on by token 3).
        LockGrant third = locks.grant(new long[]{SALT ^ 2}, 4, LONG_LEASE, 0);
        assertEquals(List.of(one), third.pending());
        assertEquals(List.of(one), locks.grant(new long[]{SALT ^ 1}, 4, LONG_LEASE, 0).pending());
        assertEquals(1, locks.record(new long[]{SALT ^ 1}, new LockGrant.Intent(4, start + 9, new byte[]{4})));
        assertEquals(1, locks.settle(new long[]{1, 77}), "token 1's intent; 77 has none");
        assertEquals(1, locks.intents());
        locks.unlock(keys, 4, start + 9, false);
        assertEquals(0, locks.intents(), "done with the unlock");
        assertEquals(List.of(), locks.grant(new long[]{SALT ^ 1, SALT ^ 2, SALT ^ 3}, 5, LONG_LEASE, 0).pending());
    }

    @Test
    void intents_aLockThatTimesOut_leavesWhatItInheritedPending() throws InterruptedException {
        BucketLocks locks = new BucketLocks();
        long[] keys = {SALT ^ 1, SALT ^ 2};
        long start = locks.lock(keys, 1, 0, 0);
        LockGrant.Intent one = new LockGrant.Intent(1, start + 5, new byte[]{1});
        // Recorded while the lease lasts (a lease of 0 has ended: the record is refused).
        assertEquals(0, locks.record(keys, one));
        locks.lock(keys, 1, LONG_LEASE, 0);
        assertEquals(2, locks.record(keys, one));
        locks.unlock(keys, 1, start, true);
        locks.lock(new long[]{SALT ^ 2}, 9, LONG_LEASE, 0); // key 2 busy
        assertEquals(LockGrant.BUSY, locks.grant(keys, 3, LONG_LEASE, 0), "key 1 taken, then key 2 busy");
        assertEquals(List.of(one), locks.grant(new long[]{SALT ^ 1}, 4, LONG_LEASE, 0).pending());
    }

    @Test
    void intents_inTheLog_arePendingAfterARestart_untilDone_aTornTailIgnored(@TempDir Path dir) throws Exception {
        long[] keys = {SALT ^ 1, SALT ^ 2};
        LockGrant.Intent one;
        try (IntentLog log = IntentLog.open(dir, false)) {
            BucketLocks locks = new BucketLocks(log);
            long start = locks.lock(keys, 1, LONG_LEASE, 0);
            one = new LockGrant.Intent(1, start + 5, new byte[]{7, 8});
            assertEquals(2, locks.record(keys, one));
            long other = locks.lock(new long[]{SALT ^ 3}, 2, LONG_LEASE, 0);
            assertEquals(1, locks.record(new long[]{SALT ^ 3}, new LockGrant.Intent(2, other + 1, new byte[]{9})));
            locks.unlock(new long[]{SALT ^ 3}, 2, other + 1, false); // token 2 is done; token 1 is killed holding its keys
        }
        Files.write(dir.resolve(IntentLog.FILE), new byte[]{0, 0, 0, 40, 1, 2}, StandardOpenOption.APPEND); // a torn record

        try (IntentLog log = IntentLog.open(dir, false)) {
            BucketLocks locks = new BucketLocks(log);
            LockGrant next = locks.grant(new long[]{SALT ^ 2, SALT ^ 3}, 3, LONG_LEASE, 0);
            assertEquals(1, next.pending().size(), "token 1's intent, on key 2; token 2 was done");
            assertEquals(1, next.pending().get(0).token());
            assertArrayEquals(new byte[]{7, 8}, next.pending().get(0).docs());
            assertTrue(next.stamp() >= one.stamp(), "numbered after it");
            assertEquals(1, locks.settle(new long[]{1}));
            locks.unlock(new long[]{SALT ^ 2, SALT ^ 3}, 3, next.stamp(), false);
        }
        try (IntentLog log = IntentLog.open(dir, false)) {
            assertEquals(List.of(), log.pending(), "settled before the restart");
            BucketLocks locks = new BucketLocks(log);
            assertEquals(List.of(), locks.grant(keys, 4, LONG_LEASE, 0).pending());
        }
    }

    /**
     * An intent taken from a peer (this node missed its record) is handed on like one left
     * here: by a free key, and by a key held meanwhile once that holder is done; it is kept
     * through a restart. One pending here already, or whose token was settled here lately
     * (pending here or not), is not taken: the peer has not seen the settle yet.
     */
    @Test
    void intents_adoptedFromAPeer_handedOnLikeOneLeftHere_notTakenOnceSettledHere(@TempDir Path dir) throws Exception {
        long[] keys = {SALT ^ 1, SALT ^ 2};
        LockGrant.Intent missed = new LockGrant.Intent(7, 100, new byte[]{3});
        try (IntentLog log = IntentLog.open(dir, false)) {
            BucketLocks locks = new BucketLocks(log);
            long held = locks.lock(new long[]{SALT ^ 2}, 9, LONG_LEASE, 0); // a holder of key 2 meanwhile
            assertTrue(locks.adopt(missed, keys));
            assertFalse(locks.adopt(missed, keys), "pending already");
            List<IntentLog.Entry> records = locks.records(new long[0]);
            assertEquals(List.of(7L), records.stream().map(e -> e.intent().token()).toList());
            assertArrayEquals(keys, records.get(0).keys());
            assertEquals(List.of(), locks.records(new long[]{7}), "the tokens asked are left out");
            locks.unlock(new long[]{SALT ^ 2}, 9, held, false); // done with its keys, not knowing of the intent
            assertEquals(List.of(7L), locks.grant(new long[]{SALT ^ 2}, 10, LONG_LEASE, 0).pending().stream().map(LockGrant.Intent::token).toList(),
                    "key 2 keeps it for its next holder");
            locks.unlock(new long[]{SALT ^ 2}, 10, held, true);
        }
        try (IntentLog log = IntentLog.open(dir, false)) {
            BucketLocks locks = new BucketLocks(log);
            LockGrant next = locks.grant(new long[]{SALT ^ 1}, 11, LONG_LEASE, 0);
            assertEquals(List.of(7L), next.pending().stream().map(LockGrant.Intent::token).toList(), "kept through a restart");
            assertArrayEquals(new byte[]{3}, next.pending().get(0).docs());
            assertEquals(1, locks.settle(new long[]{7}));
            locks.unlock(new long[]{SALT ^ 1}, 11, next.stamp(), false);
            assertFalse(locks.adopt(missed, keys), "settled here");
            assertEquals(0, locks.settle(new long[]{8}), "never pending here");
            assertFalse(locks.adopt(new LockGrant.Intent(8, 100, new byte[]{4}), keys), "settled here before it was taken");
            assertEquals(List.of(), locks.grant(keys, 12, LONG_LEASE, 0).pending());
        }
    }
}
