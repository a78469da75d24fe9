package simdex.cluster;

import io.atomix.core.Atomix;
import io.atomix.core.value.AtomicValue;
import io.atomix.core.value.AtomicValueEventListener;
import io.atomix.primitive.PrimitiveState;
import io.atomix.protocols.raft.MultiRaftProtocol;
import io.atomix.protocols.raft.ReadConsistency;
import io.atomix.utils.serializer.Serializer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/** The Raft-replicated partition map; works the same on Raft members and client-only members. */
public final class PartitionMapStore {
  /** Serializer without Kryo. Atomix encodes/decodes null for "unset": pass it through. */
  private static final Serializer CODEC = new Serializer() {
    @Override public <T> byte[] encode(T o) { return o == null ? null : ((PartitionMap) o).toBytes(); }
    @SuppressWarnings("unchecked")
    @Override public <T> T decode(byte[] b) { return b == null ? null : (T) PartitionMap.fromBytes(b); }
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
  private volatile PrimitiveState state = PrimitiveState.CONNECTED;
  private PartitionMap lastSeen; // guarded by this

  /** Creates the primitive on first use, else attaches to it; blocks until its Raft session is open. */
  public PartitionMapStore(Atomix atomix, Duration opTimeout, Duration sessionTimeout) {
    value = atomix.<PartitionMap>atomicValueBuilder("simdex-partition-map")
        .withProtocol(MultiRaftProtocol.builder("raft")            // the Raft partition group's name
            .withReadConsistency(ReadConsistency.LINEARIZABLE)
            .withMaxTimeout(sessionTimeout)                       // Raft session timeout; default 30 s
            .build())
        .withSerializer(CODEC)
        .build()
        .async().sync(opTimeout);                                 // per-call timeout; default 5 s
  }

  /** Current map (linearizable read); null if never set. */
  public PartitionMap current() { return value.get(); }

  public PartitionMap initializeIfAbsent(PartitionMap initial) {
    return value.compareAndSet(null, initial) ? initial : value.get();
  }

  /** CAS epoch N -> N+1 (unset = epoch 0); false if the map changed since {@code expected} was read. */
  public boolean compareAndSet(PartitionMap expected, PartitionMap next) {
    long n = expected == null ? 0 : expected.epoch();
    if (next.epoch() != n + 1) throw new IllegalArgumentException("epoch must go " + n + " -> " + (n + 1));
    return value.compareAndSet(expected, next);
  }

  /** Read-modify-CAS until it sticks (nextOf gets null while unset); returns the installed map. */
  public PartitionMap update(UnaryOperator<PartitionMap> nextOf) {
    while (true) {
      PartitionMap cur = value.get(), next = nextOf.apply(cur);
      if (compareAndSet(cur, next)) return next;
    }
  }

  /**
   * Calls onNewMap with the current map, then with every newer epoch (never older, never twice), on an
   * Atomix thread (do not block). Re-subscribes after Raft session expiry, which otherwise silently ends events.
   */
  public void watch(Consumer<PartitionMap> onNewMap) {
    listeners.add(onNewMap);
    if (!started.compareAndSet(false, true)) {
      PartitionMap m = lastSeenOrNull();
      if (m != null) onNewMap.accept(m);
      return;
    }
    value.async().addStateChangeListener(s -> {  // the sync wrapper's addStateChangeListener is a no-op
      PrimitiveState prev = state;
      state = s;
      if (s == PrimitiveState.CONNECTED && prev != PrimitiveState.CONNECTED) exec.execute(this::resubscribe);
    });
    resubscribe();
    exec.scheduleWithFixedDelay(() -> {          // safety net: poll every 10 s
      try {
        if (registered == null) resubscribe(); else deliver(value.get());
      } catch (RuntimeException noQuorumNow) { /* retry next round */ }
    }, 10, 10, TimeUnit.SECONDS);
  }

  private void resubscribe() {
    synchronized (subscribeLock) {                // never block on Atomix while holding deliver()'s lock
      try {
        AtomicValueEventListener<PartitionMap> old = registered;
        registered = null;
        if (old != null) value.removeListener(old); // proxy drops its (dead) subscription...
        AtomicValueEventListener<PartitionMap> l = e -> deliver(e.newValue());
        value.addListener(l);                       // ...and re-subscribes on the current session
        registered = l;
        deliver(value.get());                       // catch up on anything missed
      } catch (RuntimeException notConnected) { /* retried on next CONNECTED or by the poll */ }
    }
  }

  private synchronized PartitionMap lastSeenOrNull() { return lastSeen; }

  private synchronized void deliver(PartitionMap m) {
    if (m == null || (lastSeen != null && m.epoch() <= lastSeen.epoch())) return;
    lastSeen = m;
    listeners.forEach(l -> l.accept(m));
  }
}
