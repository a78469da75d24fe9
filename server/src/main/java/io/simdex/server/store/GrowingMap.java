package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;

/**
 * A persisted map that grows by adding Chronicle Maps instead of overflowing one: generation G
 * is the file {@code NAME-G.cm}, created for {@code initialEntries * 2^G} entries when the
 * newest generation is full. A key lives in exactly one generation.
 *
 * <p>Reads look in the newest generation first (most keys are there once a map has grown),
 * so a lookup costs one probe per generation at worst: log2(final size / initial size).
 * Writers of a key hold its stripe lock, so two writers cannot place one key in two
 * generations while a new generation is being added.
 */
public final class GrowingMap<K, V> implements Closeable {
    private static final int STRIPES = 1024;

    private final Path dir;
    private final String name;
    private final long initialEntries;
    private final BuilderFactory<K, V> builders;
    private final boolean clean;
    private final CopyOnWriteArrayList<ChronicleMap<K, V>> generations = new CopyOnWriteArrayList<>();
    private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

    /** Makes the builder for a generation of {@code entries} entries. */
    public interface BuilderFactory<K, V> {
        ChronicleMapBuilder<K, V> builder(long entries);
    }

    public GrowingMap(Path dir, String name, long initialEntries, BuilderFactory<K, V> builders, boolean clean) {
        this.dir = dir;
        this.name = name;
        this.initialEntries = initialEntries;
        this.builders = builders;
        this.clean = clean;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantLock();
        }
        for (int g = 0; Files.exists(file(g)); g++) {
            generations.add(open(g));
        }
        if (generations.isEmpty()) {
            generations.add(open(0));
        }
    }

    public V get(K key) {
        for (int g = generations.size() - 1; g >= 0; g--) {
            V v = generations.get(g).get(key);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /** Sets {@code key} to {@code value}; returns the previous value. */
    public V put(K key, V value) {
        ReentrantLock lock = stripe(key);
        lock.lock();
        try {
            ChronicleMap<K, V> holder = holder(key);
            return holder != null ? holder.put(key, value) : writable().put(key, value);
        } finally {
            lock.unlock();
        }
    }

    public V remove(K key) {
        ReentrantLock lock = stripe(key);
        lock.lock();
        try {
            ChronicleMap<K, V> holder = holder(key);
            return holder == null ? null : holder.remove(key);
        } finally {
            lock.unlock();
        }
    }

    /** Atomically replaces the value (null: absent) by {@code f(key, value)}; null removes. Returns the new value. */
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> f) {
        ReentrantLock lock = stripe(key);
        lock.lock();
        try {
            ChronicleMap<K, V> holder = holder(key);
            if (holder != null) {
                return holder.compute(key, f);
            }
            V created = f.apply(key, null);
            if (created != null) {
                writable().put(key, created);
            }
            return created;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Calls {@code action} with every entry (copies). No lock is held while it runs: Chronicle
     * Map's iterator copies one segment at a time, so a slow consumer (a stream waiting for its
     * reader) does not stall writers. Entries written meanwhile may or may not be seen.
     */
    public void forEach(java.util.function.BiConsumer<? super K, ? super V> action) {
        for (ChronicleMap<K, V> m : generations) {
            for (Map.Entry<K, V> e : m.entrySet()) {
                action.accept(e.getKey(), e.getValue());
            }
        }
    }

    /** Calls {@code action} with every value (a copy). */
    public void forEachValue(java.util.function.Consumer<? super V> action) {
        for (ChronicleMap<K, V> m : generations) {
            m.values().forEach(action);
        }
    }

    /** Removes every entry {@code drop} accepts; returns how many. */
    public long removeIf(java.util.function.BiPredicate<? super K, ? super V> drop) {
        long removed = 0;
        for (ChronicleMap<K, V> m : generations) {
            long before = m.longSize();
            m.entrySet().removeIf(e -> drop.test(e.getKey(), e.getValue()));
            removed += before - m.longSize();
        }
        return removed;
    }

    public long size() {
        long n = 0;
        for (ChronicleMap<K, V> m : generations) {
            n += m.longSize();
        }
        return n;
    }

    public long offHeapBytes() {
        long n = 0;
        for (ChronicleMap<K, V> m : generations) {
            n += m.offHeapMemoryUsed();
        }
        return n;
    }

    int generationCount() {
        return generations.size();
    }

    @Override
    public void close() {
        generations.forEach(ChronicleMap::close);
    }

    private ChronicleMap<K, V> holder(K key) {
        for (int g = generations.size() - 1; g >= 0; g--) {
            ChronicleMap<K, V> m = generations.get(g);
            if (m.containsKey(key)) {
                return m;
            }
        }
        return null;
    }

    /** The newest generation, after adding one if it holds its configured entries. */
    private ChronicleMap<K, V> writable() {
        ChronicleMap<K, V> newest = generations.get(generations.size() - 1);
        if (newest.longSize() < capacity(generations.size() - 1)) {
            return newest;
        }
        synchronized (generations) {
            newest = generations.get(generations.size() - 1);
            if (newest.longSize() >= capacity(generations.size() - 1)) {
                newest = open(generations.size());
                generations.add(newest);
            }
            return newest;
        }
    }

    private long capacity(int g) {
        return initialEntries << Math.min(g, 20);
    }

    private ChronicleMap<K, V> open(int g) {
        return MapFiles.open(builders.builder(capacity(g)).name(name + "-" + g), file(g), clean);
    }

    private Path file(int g) {
        return dir.resolve(name + "-" + g + ".cm");
    }

    /** Stripes by content, arrays included (their hashCode is identity, useless for locking). */
    private ReentrantLock stripe(K key) {
        int h = key instanceof byte[] bytes ? java.util.Arrays.hashCode(bytes) : key.hashCode();
        return stripes[(h * 0x9E3779B9 >>> 22) & (STRIPES - 1)];
    }
}
