package io.simdex.router.cluster;

import io.atomix.core.Atomix;
import io.atomix.core.map.AsyncAtomicMap;
import io.atomix.core.map.AtomicMap;
import io.atomix.core.map.AtomicMapEvent;
import io.atomix.core.map.AtomicMapEventListener;
import io.atomix.protocols.raft.MultiRaftProtocol;
import io.atomix.protocols.raft.ReadConsistency;
import io.atomix.utils.serializer.Serializer;
import io.atomix.utils.time.Versioned;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

/**
 * Nodes that missed an acknowledged write. With a write quorum below R a write can succeed
 * while one replica failed it (a stall, a flapping link): that replica is behind and no restart
 * will tell it. The router that saw the failure marks the node here (an Atomix map on the Raft
 * group) before the write is acknowledged, stops reading from it, and the node, which watches
 * its own entry, stops serving reads, catches up from its peers and clears the entry if nobody
 * marked it again meanwhile (the entry's version says so). Each clear first rewrites the node's
 * {@value #CLEARED} entry, so a mark put and cleared again leaves a trace: a partition copy from
 * the node that started before it may lack the write, though the node is not marked any more
 * ({@link #clears}, read by the Rebalancer).
 */
public final class MissedWrites implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(MissedWrites.class.getName());

    /** The Raft session's bound: a dead router's session, and what it holds, ends this long after it stops. */
    public static final Duration MARK_TIMEOUT = Duration.ofSeconds(5);
    /**
     * How long a mark's put may take to commit before the writes waiting for it are answered
     * UNAVAILABLE. Longer than {@link #MARK_TIMEOUT}: when the node killed is the Raft leader, the
     * put waits for an election, which took more than 5 s on a loaded 2-core machine (a
     * ReplicatedClusterIT write was refused so); a write should wait that out, not fail.
     */
    public static final Duration MARK_COMMIT_TIMEOUT = Duration.ofSeconds(12);
    private static final AtomicLong PUTS = new AtomicLong();
    /** Key prefix of a node's last clear; never a node's id, which holds no '/' ({@link ClusterConfig#memberId}). */
    static final String CLEARED = "cleared/";
    private static final String INSTANCE = java.util.UUID.randomUUID().toString();

    private final AtomicMap<String, String> map;
    private final CoalescedPuts puts;
    /** Marked nodes as last read from the map, plus this process's own marks not yet seen there. */
    private final Set<String> suspects = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Long> markedHere = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> lastLogged = new ConcurrentHashMap<>();
    /** Reports this process made, per node: the missed-writes metric. */
    private final ConcurrentHashMap<String, LongAdder> reports = new ConcurrentHashMap<>();
    /**
     * How often the map is read whatever the listener heard. Events normally arrive within a
     * Raft commit; the poll bounds how long a lost one (a session that expired and came back
     * between an event and the listener's new registration) goes unseen.
     */
    public static final Duration SAFETY_POLL = Duration.ofSeconds(5);
    private final Duration safetyPoll;
    private final AtomicMapEventListener<String, String> listener = this::onEvent;
    private long changes; // guarded by this
    private final ScheduledExecutorService poll = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "missed-writes");
        t.setDaemon(true);
        return t;
    });

    public MissedWrites(Atomix atomix) {
        this(atomix, SAFETY_POLL);
    }

    /** With the map read every {@code safetyPoll} while {@link #watching} (tests use long ones, to see events alone). */
    MissedWrites(Atomix atomix, Duration safetyPoll) {
        this(atomix, "simdex-missed-writes", safetyPoll);
    }

    /** In the Raft map {@code name}: tests that share a Raft group name their own. */
    MissedWrites(Atomix atomix, String name, Duration safetyPoll) {
        this.safetyPoll = safetyPoll;
        map = atomix.<String, String>atomicMapBuilder(name)
                .withProtocol(MultiRaftProtocol.builder("raft").withReadConsistency(ReadConsistency.LINEARIZABLE)
                        .withMaxTimeout(MARK_TIMEOUT).build())
                .withSerializer(new Serializer() { // keys and values as UTF-8: no Kryo
                    @Override
                    public <T> byte[] encode(T o) {
                        return o == null ? null : ((String) o).getBytes(StandardCharsets.UTF_8);
                    }

                    @SuppressWarnings("unchecked")
                    @Override
                    public <T> T decode(byte[] b) {
                        return b == null ? null : (T) new String(b, StandardCharsets.UTF_8);
                    }
                })
                .build().async().sync(Duration.ofSeconds(10));
        AsyncAtomicMap<String, String> async = map.async();
        puts = new CoalescedPuts(node -> async.put(node, fresh()), MARK_COMMIT_TIMEOUT);
    }

    /**
     * Keeps {@link #suspect} current and wakes {@link #awaitChange}: a listener on the map, and
     * a poll every {@link #SAFETY_POLL} for what a listener can miss. The listener is registered
     * anew whenever the Raft session comes back, since an expired session silently drops it.
     */
    public MissedWrites watching() {
        Reconnects.onReconnect(map.async(), poll, this::subscribe);
        subscribe();
        poll.scheduleWithFixedDelay(this::refresh, safetyPoll.toMillis(), safetyPoll.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void subscribe() {
        try {
            map.removeListener(listener); // Atomix registers with the Raft group only when its first listener is added
            map.addListener(listener);
            refresh();
        } catch (RuntimeException notConnected) {
            // again on CONNECTED, and the poll reads the map meanwhile
        }
    }

    private void onEvent(AtomicMapEvent<String, String> e) {
        if (e.key().startsWith(CLEARED)) {
            return;
        }
        synchronized (this) {
            if (e.type() == AtomicMapEvent.Type.REMOVE) {
                if (!markedHere.containsKey(e.key())) {
                    suspects.remove(e.key());
                }
            } else {
                markedHere.remove(e.key()); // the map shows this process's mark now
                suspects.add(e.key());
            }
        }
        changed();
    }

    private void refresh() {
        try {
            long before = changes();
            Set<String> marked = map.keySet().stream().filter(k -> !k.startsWith(CLEARED)).collect(java.util.stream.Collectors.toSet());
            long now = System.nanoTime();
            synchronized (this) {
                // Own marks count until the map shows them (or for 10 s, if the put was lost).
                markedHere.entrySet().removeIf(e -> marked.contains(e.getKey()) || now - e.getValue() > TimeUnit.SECONDS.toNanos(10));
                if (changes == before) { // else an event newer than this read may have added a node it lacks
                    suspects.retainAll(marked);
                }
                suspects.addAll(marked);
                suspects.addAll(markedHere.keySet());
            }
            changed();
        } catch (RuntimeException noQuorumNow) {
            // next round
        }
    }

    private synchronized void changed() {
        changes++;
        notifyAll();
    }

    /** How many times the map was seen to change (or read): pass it to {@link #awaitChange}. */
    public synchronized long changes() {
        return changes;
    }

    /** Node side, with {@link #watching}: waits until the map changes after {@code seen} ({@link #changes}), at most {@code millis}. */
    public synchronized void awaitChange(long seen, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        for (long left = millis; changes == seen && left > 0; left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
            wait(left);
        }
    }

    /**
     * A write its quorum took failed on {@code nodeId}, or it has not answered in time, and the
     * other replicas that took it have answered: stop reading from it at once, and tell it. The
     * answer completes once the mark is committed in the Raft map by a put issued after this call
     * (the node relies on that, see ClusterNode); it fails if no put commits within
     * {@link #MARK_COMMIT_TIMEOUT} (no Raft quorum), and then the write must not be acknowledged.
     * Concurrent reports for one node share a put (see {@link CoalescedPuts}).
     */
    public CompletableFuture<Void> mark(String nodeId) {
        report(nodeId);
        return markReported(nodeId);
    }

    /** The local half of {@link #mark}: counts the report and stops reads from the node at once; the durable mark is {@link #markReported}. */
    public void report(String nodeId) {
        reports.computeIfAbsent(nodeId, k -> new LongAdder()).increment();
        long now = System.nanoTime();
        suspectHere(nodeId);
        Long logged = lastLogged.get(nodeId);
        if (logged == null || now - logged > TimeUnit.SECONDS.toNanos(10)) { // one line per node per 10 s, not per write
            lastLogged.put(nodeId, now);
            LOG.warning(nodeId + " missed an acknowledged write: it must catch up before it serves reads again");
        }
    }

    /** Under the lock, so an event removing an older mark of the node cannot undo this. */
    private synchronized void suspectHere(String nodeId) {
        markedHere.putIfAbsent(nodeId, System.nanoTime());
        suspects.add(nodeId);
    }

    /** The durable half of {@link #mark}, for a node already {@link #report reported}: as {@link #mark}, counting nothing. */
    public CompletableFuture<Void> markReported(String nodeId) {
        suspectHere(nodeId);
        return puts.request(nodeId);
    }

    /** Whether reads should avoid the node (it missed writes and has not caught up yet). */
    public boolean suspect(String nodeId) {
        return !suspects.isEmpty() && suspects.contains(nodeId);
    }

    /** How many writes acknowledged by their quorum this process saw fail on each node, since it started. */
    public java.util.Map<String, Long> reportCounts() {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        reports.forEach((node, n) -> out.put(node, n.sum()));
        return out;
    }

    /** Node side: the version of this node's mark, or -1 when there is none. */
    public long markVersion(String nodeId) {
        Versioned<String> v = map.get(nodeId);
        return v == null ? -1 : v.version();
    }

    /**
     * Node side: clears the mark if nobody marked it again since {@code version}; false if someone
     * did. The node's {@link #clears} entry changes first, also when the mark stays.
     */
    public boolean clear(String nodeId, long version) {
        map.put(CLEARED + nodeId, fresh());
        return map.remove(nodeId, version);
    }

    /** A value no put has written before: Atomix keeps the version of a put that changes nothing. */
    private static String fresh() {
        return System.currentTimeMillis() + "/" + PUTS.incrementAndGet() + "/" + INSTANCE;
    }

    /**
     * The version of the node's last {@link #clear}, -1 if it was never cleared: read it before
     * something that must not overlap a missed write, then check that the node is not marked
     * ({@link #markVersion}) and that this has not changed. A node marked and cleared again in
     * between changed it (a clear writes it before it removes the mark).
     */
    public long clears(String nodeId) {
        Versioned<String> v = map.get(CLEARED + nodeId);
        return v == null ? -1 : v.version();
    }

    @Override
    public void close() {
        poll.shutdownNow();
    }
}
