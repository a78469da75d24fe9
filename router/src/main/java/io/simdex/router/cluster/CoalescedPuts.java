package io.simdex.router.cluster;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Puts to a replicated map, coalesced per key, each caller told when a put <em>issued after its
 * call</em> has committed. Per key at most one put is in flight; callers arriving meanwhile share
 * the next one, issued when the current one settles. So N concurrent callers cost at most two
 * puts, and no caller is answered by a put that started before it asked (a put that started
 * earlier may have been read, and acted on, by the key's owner before the caller's reason to
 * write existed).
 *
 * <p>A put that has not committed within {@code timeout} fails its callers (and frees the key
 * for the next put); a put that fails does the same.
 */
final class CoalescedPuts {
    private final Function<String, CompletableFuture<?>> put;
    private final long timeoutNanos;
    private final ConcurrentHashMap<String, Key> keys = new ConcurrentHashMap<>();

    /** @param put issues one put of {@code key} (with a fresh value) and completes when it commits */
    CoalescedPuts(Function<String, CompletableFuture<?>> put, Duration timeout) {
        this.put = put;
        this.timeoutNanos = timeout.toNanos();
    }

    /** Completes once a put of {@code key} issued after this call has committed; exceptionally if it failed or timed out. */
    CompletableFuture<Void> request(String key) {
        return keys.computeIfAbsent(key, Key::new).join();
    }

    /** One key's put in flight and the callers waiting for the next. */
    private final class Key {
        private final String key;
        /** Callers that need a put not issued yet; null when none. */
        private CompletableFuture<Void> next;
        private boolean inFlight;

        Key(String key) {
            this.key = key;
        }

        CompletableFuture<Void> join() {
            CompletableFuture<Void> waiting;
            synchronized (this) {
                if (next == null) {
                    next = new CompletableFuture<>();
                }
                waiting = next;
                if (inFlight) {
                    return waiting; // issued when the put in flight settles
                }
                inFlight = true;
                next = null;
            }
            issue(waiting);
            return waiting;
        }

        /** Called without the lock: callers' continuations (write acknowledgements) run outside it. */
        private void issue(CompletableFuture<Void> callers) {
            CompletableFuture<?> committed;
            try {
                committed = put.apply(key);
            } catch (RuntimeException e) {
                committed = CompletableFuture.failedFuture(e);
            }
            committed.copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).whenComplete((v, failure) -> {
                if (failure == null) {
                    callers.complete(null);
                } else {
                    callers.completeExceptionally(failure);
                }
                CompletableFuture<Void> following;
                synchronized (this) {
                    following = next;
                    next = null;
                    inFlight = following != null;
                }
                if (following != null) {
                    issue(following);
                }
            });
        }
    }
}
