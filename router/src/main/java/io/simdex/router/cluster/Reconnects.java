package io.simdex.router.cluster;

import io.atomix.primitive.AsyncPrimitive;
import io.atomix.primitive.PrimitiveState;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs an action whenever an Atomix primitive's Raft session returns to CONNECTED. An expired
 * session silently drops the primitive's event listeners, so those who listen register again
 * from here.
 */
final class Reconnects {
    private Reconnects() {
    }

    /**
     * Calls {@code action} on {@code executor} each time {@code primitive} becomes CONNECTED
     * after any other state. Registered on the asynchronous primitive: the synchronous wrapper's
     * {@code addStateChangeListener} does nothing.
     */
    static void onReconnect(AsyncPrimitive primitive, Executor executor, Runnable action) {
        AtomicReference<PrimitiveState> last = new AtomicReference<>(PrimitiveState.CONNECTED);
        primitive.addStateChangeListener(s -> {
            PrimitiveState previous = last.getAndSet(s);
            if (s == PrimitiveState.CONNECTED && previous != PrimitiveState.CONNECTED) {
                executor.execute(action);
            }
        });
    }
}
