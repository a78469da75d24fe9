package io.simdex.router.cluster;

import io.atomix.core.Atomix;
import io.atomix.core.value.AtomicValue;
import io.atomix.core.value.AtomicValueEventListener;
import io.atomix.protocols.raft.MultiRaftProtocol;
import io.atomix.protocols.raft.ReadConsistency;
import io.atomix.utils.serializer.Serializer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The partition map in an Atomix {@code AtomicValue} on the Raft group: linearizable reads, and
 * changes by compare-and-set from epoch N to N+1, which is what guarantees that two admins or
 * rebalancers never both change placement. Works the same on Raft members and client members.
 */
public final class PartitionMapStore implements AutoCloseable {
    /** No Kryo: the map's own canonical bytes. Atomix passes null for "unset". */
    private static final Serializer CODEC = new Serializer() {
        @Override
        public <T> byte[] encode(T o) {
            return o == null ? null : ((PartitionMap) o).toBytes();
        }

        @SuppressWarnings("unchecked")
        @Override
        public <T> T decode(byte[] b) {
            return b == null ? null : (T) PartitionMap.fromBytes(b);
        }
    };

    private final AtomicValue<PartitionMap> value;
    private final List<Consumer<PartitionMap>> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "partition-map-watch");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean started = new AtomicBoolean();
    private final Object subscribeLock = new Object();
    private volatile AtomicValueEventListener<PartitionMap> registered;
    private PartitionMap lastSeen; // guarded by this

    /**
     * Opens the value (creating it on first use); blocks until its Raft session is open.
     * The session timeout is short (Atomix's default is 30 s) so a dead member's session, and the
     * listeners bound to it, do not linger.
     */
    public PartitionMapStore(Atomix atomix) {
        this(atomix, "simdex-partition-map");
    }

    /** As {@link #PartitionMapStore(Atomix)}, in the Raft value {@code name} (tests that share a Raft group name their own). */
    PartitionMapStore(Atomix atomix, String name) {
        value = atomix.<PartitionMap>atomicValueBuilder(name)
                .withProtocol(MultiRaftProtocol.builder("raft")
                        .withReadConsistency(ReadConsistency.LINEARIZABLE)
                        .withMaxTimeout(Duration.ofSeconds(5))
                        .build())
                .withSerializer(CODEC)
                .build()
                .async().sync(Duration.ofSeconds(10));
    }

    /** The current map (linearizable read); null if never set. */
    public PartitionMap current() {
        return value.get();
    }

    public PartitionMap initializeIfAbsent(PartitionMap initial) {
        return value.compareAndSet(null, initial) ? initial : value.get();
    }

    /** Epoch N -> N+1 if the map is still {@code expected}; false if someone changed it first. */
    public boolean compareAndSet(PartitionMap expected, PartitionMap next) {
        if (next.epoch() != expected.epoch() + 1) {
            throw new IllegalArgumentException("epoch must go " + expected.epoch() + " -> " + (expected.epoch() + 1) + ", not " + next.epoch());
        }
        boolean done = value.compareAndSet(expected, next);
        if (done) {
            deliver(next);
        }
        return done;
    }

    /** Read, change, compare-and-set until it sticks; the installed map. */
    public PartitionMap update(UnaryOperator<PartitionMap> change) {
        while (true) {
            PartitionMap cur = value.get();
            PartitionMap next = change.apply(cur);
            if (compareAndSet(cur, next)) {
                return next;
            }
        }
    }

    /**
     * Calls {@code onNewMap} with the current map and then every newer epoch (never an older
     * one, never twice), on a watcher thread. Re-subscribes when the Raft session comes back:
     * an expired session silently ends Atomix events. A poll every {@link MissedWrites#SAFETY_POLL}
     * is the safety net.
     */
    public void watch(Consumer<PartitionMap> onNewMap) {
        listeners.add(onNewMap);
        if (!started.compareAndSet(false, true)) {
            PartitionMap m = lastSeenOrNull();
            if (m != null) {
                onNewMap.accept(m);
            }
            return;
        }
        Reconnects.onReconnect(value.async(), exec, this::resubscribe);
        resubscribe();
        exec.scheduleWithFixedDelay(() -> {
            try {
                if (registered == null) {
                    resubscribe();
                } else {
                    deliver(value.get());
                }
            } catch (RuntimeException noQuorumNow) {
                // next round
            }
        }, MissedWrites.SAFETY_POLL.toMillis(), MissedWrites.SAFETY_POLL.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The newest map this store has seen (null before the first). */
    public synchronized PartitionMap lastSeenOrNull() {
        return lastSeen;
    }

    private void resubscribe() {
        synchronized (subscribeLock) { // never call Atomix while holding deliver()'s lock
            try {
                AtomicValueEventListener<PartitionMap> old = registered;
                registered = null;
                if (old != null) {
                    value.removeListener(old);
                }
                AtomicValueEventListener<PartitionMap> l = e -> deliver(e.newValue());
                value.addListener(l);
                registered = l;
                deliver(value.get());
            } catch (RuntimeException notConnected) {
                // retried on the next CONNECTED or by the poll
            }
        }
    }

    private synchronized void deliver(PartitionMap m) {
        if (m == null || (lastSeen != null && m.epoch() <= lastSeen.epoch())) {
            return;
        }
        lastSeen = m;
        listeners.forEach(l -> l.accept(m));
    }

    @Override
    public void close() {
        exec.shutdownNow();
    }
}
