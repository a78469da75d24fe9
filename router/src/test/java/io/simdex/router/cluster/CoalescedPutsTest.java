package io.simdex.router.cluster;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CoalescedPutsTest {
    /** Puts that commit when the test says so, in the order issued. */
    private final List<CompletableFuture<Void>> issued = new CopyOnWriteArrayList<>();
    private final List<String> keys = new CopyOnWriteArrayList<>();

    private CoalescedPuts puts(Duration timeout) {
        return new CoalescedPuts(key -> {
            keys.add(key);
            CompletableFuture<Void> put = new CompletableFuture<>();
            issued.add(put);
            return put;
        }, timeout);
    }

    @Test
    void request_whileAPutIsInFlight_waitsForTheNextPut_sharedByAllThatArrivedMeanwhile() {
        CoalescedPuts puts = puts(Duration.ofMinutes(1));
        CompletableFuture<Void> first = puts.request("node-2");
        assertEquals(1, issued.size(), "the first request puts at once");
        CompletableFuture<Void> second = puts.request("node-2");
        CompletableFuture<Void> third = puts.request("node-2");
        assertEquals(1, issued.size(), "one put in flight per key");

        issued.get(0).complete(null);
        assertTrue(first.isDone());
        assertFalse(second.isDone(), "a put issued before the request does not answer it");
        assertEquals(2, issued.size(), "the waiting requests' put is issued when the first settles");
        issued.get(1).complete(null);
        assertTrue(second.isDone() && third.isDone(), "one put answers every request that waited for it");
        assertEquals(2, issued.size());
        assertEquals(List.of("node-2", "node-2"), keys);
    }

    @Test
    void request_otherKeys_doNotWaitForEachOther() {
        CoalescedPuts puts = puts(Duration.ofMinutes(1));
        puts.request("node-1");
        CompletableFuture<Void> other = puts.request("node-3");
        assertEquals(List.of("node-1", "node-3"), keys);
        issued.get(1).complete(null);
        assertTrue(other.isDone());
    }

    @Test
    void request_putFails_failsItsCallers_andTheNextRequestPutsAgain() {
        CoalescedPuts puts = puts(Duration.ofMinutes(1));
        CompletableFuture<Void> failed = puts.request("node-2");
        issued.get(0).completeExceptionally(new IllegalStateException("no leader"));
        assertInstanceOf(IllegalStateException.class, assertThrows(CompletionException.class, failed::join).getCause());
        CompletableFuture<Void> again = puts.request("node-2");
        assertEquals(2, issued.size());
        issued.get(1).complete(null);
        assertTrue(again.isDone() && !again.isCompletedExceptionally());
    }

    @Test
    void request_putNeverCommits_failsWithinTheTimeout_andFreesTheKey() {
        CoalescedPuts puts = puts(Duration.ofMillis(50));
        CompletableFuture<Void> stuck = puts.request("node-2");
        CompletableFuture<Void> queued = puts.request("node-2");
        CompletionException e = assertThrows(CompletionException.class, () -> stuck.orTimeout(30, TimeUnit.SECONDS).join());
        assertInstanceOf(TimeoutException.class, e.getCause());
        assertThrows(CompletionException.class, () -> queued.orTimeout(30, TimeUnit.SECONDS).join(), "its put never commits either");
        assertEquals(2, issued.size(), "the queued requests got a put of their own once the stuck one timed out");
        assertFalse(issued.get(0).isDone(), "the caller's timeout does not complete the put it was handed");
    }
}
