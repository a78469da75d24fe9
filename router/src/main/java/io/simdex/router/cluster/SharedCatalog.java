package io.simdex.router.cluster;

import com.google.protobuf.InvalidProtocolBufferException;
import io.atomix.core.Atomix;
import io.atomix.core.map.AtomicMap;
import io.atomix.core.map.AtomicMapEventListener;
import io.atomix.protocols.raft.MultiRaftProtocol;
import io.atomix.protocols.raft.ReadConsistency;
import io.atomix.utils.serializer.Serializer;
import io.atomix.utils.time.Versioned;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.router.api.Catalog;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/** The routers' common collection catalog: an Atomix AtomicMap on the Raft group, name -> CollectionInfo bytes. */
public final class SharedCatalog implements Catalog.Shared, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SharedCatalog.class.getName());
    private final AtomicMap<String, byte[]> map;
    /** Runs what {@link #watch} was given, off Atomix's event thread (it reads the map, which waits on that thread). */
    private final ExecutorService events = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "catalog-events");
        t.setDaemon(true);
        return t;
    });
    private AtomicMapEventListener<String, byte[]> listener;
    /** Whether a run of what {@link #watch} was given is queued: a burst of events makes one. */
    private final AtomicBoolean queued = new AtomicBoolean();

    public SharedCatalog(Atomix atomix) {
        map = atomix.<String, byte[]>atomicMapBuilder("simdex-collections")
                .withProtocol(MultiRaftProtocol.builder("raft").withReadConsistency(ReadConsistency.LINEARIZABLE)
                        .withMaxTimeout(Duration.ofSeconds(5)).build())
                .withSerializer(new Serializer() { // names as UTF-8, values as protobuf bytes: no Kryo
                    @Override
                    public <T> byte[] encode(T o) {
                        return o == null ? null : o instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) o;
                    }

                    @SuppressWarnings("unchecked")
                    @Override
                    public <T> T decode(byte[] b) {
                        return (T) b; // keys are never decoded by the calls used here; values stay bytes
                    }
                })
                .build().async().sync(Duration.ofSeconds(10));
    }

    @Override
    public CollectionInfo putIfAbsent(CollectionInfo info) {
        Versioned<byte[]> before = map.putIfAbsent(info.getName(), info.toByteArray());
        return before == null ? null : parse(before.value());
    }

    @Override
    public Optional<CollectionInfo> get(String name) {
        Versioned<byte[]> v = map.get(name);
        return v == null ? Optional.empty() : Optional.of(parse(v.value()));
    }

    @Override
    public boolean remove(String name) {
        return map.remove(name) != null;
    }

    /**
     * Calls {@code changed} after every change to the catalog, whichever router made it, so
     * that a router's cache follows another's CreateCollection, UpdateCollection and
     * DeleteCollection at once rather than at its next sweep; and again whenever the Raft
     * session comes back, since an expired session silently drops the listener. Events carry no
     * entry this reads: {@code changed} reads the map itself.
     */
    public synchronized void watch(Runnable changed) {
        listener = e -> queue(changed);
        Reconnects.onReconnect(map.async(), events, () -> subscribe(changed));
        subscribe(changed);
    }

    private void queue(Runnable changed) {
        if (queued.compareAndSet(false, true)) {
            events.execute(() -> {
                queued.set(false);
                try {
                    changed.run();
                } catch (RuntimeException e) { // the next event or the sweep reads the catalog again
                    LOG.log(Level.WARNING, "catalog not read after a change", e);
                }
            });
        }
    }

    private synchronized void subscribe(Runnable changed) {
        try {
            map.removeListener(listener); // Atomix registers with the Raft group only when its first listener is added
            map.addListener(listener);
        } catch (RuntimeException notConnected) {
            LOG.log(Level.WARNING, "catalog events not subscribed; again when the Raft session is back", notConnected);
        }
        queue(changed); // what changed while no listener was registered
    }

    @Override
    public void close() {
        events.shutdownNow();
    }

    /** Compare-and-set on the entry's version, so an update made meanwhile by another router is never overwritten. */
    @Override
    public boolean replace(CollectionInfo expected, CollectionInfo updated) {
        Versioned<byte[]> now = map.get(expected.getName());
        return now != null && parse(now.value()).equals(expected) && map.replace(expected.getName(), now.version(), updated.toByteArray());
    }

    /** Every readable entry: an unreadable one is logged and left out, so the sweeps still serve the others. */
    @Override
    public List<CollectionInfo> all() {
        List<CollectionInfo> out = new ArrayList<>();
        for (Versioned<byte[]> v : map.values()) {
            try {
                out.add(parse(v.value()));
            } catch (IllegalStateException e) {
                LOG.log(Level.WARNING, "catalog entry skipped", e);
            }
        }
        return out;
    }

    private static CollectionInfo parse(byte[] bytes) {
        try {
            return CollectionInfo.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("unreadable catalog entry", e);
        }
    }
}
