package io.simdex.router.cluster;

import io.atomix.core.Atomix;
import io.atomix.core.map.AsyncAtomicMap;
import io.atomix.core.map.AtomicMap;
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
 * marked it again meanwhile (the entry's version says so).
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
    private static final String INSTANCE = java.util.UUID.randomUUID().toString();

    private final AtomicMap<String, String> map;
    private final CoalescedPuts puts;
    /** Marked nodes as last read from the map, plus this process's own marks not yet seen there. */
    private final Set<String> suspects = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, Long> markedHere = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> lastLogged = new ConcurrentHashMap<>();
    /** Reports this process made, per node: the missed-writes metric. */
    private final ConcurrentHashMap<String, LongAdder> reports = new ConcurrentHashMap<>();
    private final ScheduledExecutorService poll = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "missed-writes");
        t.setDaemon(true);
        return t;
    });

    public MissedWrites(Atomix atomix) {
        map = atomix.<String, String>atomicMapBuilder("simdex-missed-writes")
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
        // A fresh value every time: Atomix keeps the version of a put that changes nothing.
        puts = new CoalescedPuts(node -> async.put(node, System.currentTimeMillis() + "/" + PUTS.incrementAndGet() + "/" + INSTANCE),
                MARK_COMMIT_TIMEOUT);
    }

    /** Router side: keeps {@link #suspect} current (the map every second). */
    public MissedWrites watching() {
        poll.scheduleWithFixedDelay(this::refresh, 1, 1, TimeUnit.SECONDS);
        return this;
    }

    private void refresh() {
        try {
            Set<String> marked = map.keySet().stream().collect(java.util.stream.Collectors.toSet());
            long now = System.nanoTime();
            // Own marks count until the map shows them (or for 10 s, if the put was lost).
            markedHere.entrySet().removeIf(e -> marked.contains(e.getKey()) || now - e.getValue() > TimeUnit.SECONDS.toNanos(10));
            suspects.retainAll(marked);
            suspects.addAll(marked);
            suspects.addAll(markedHere.keySet());
        } catch (RuntimeException noQuorumNow) {
            // next second
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
        reports.computeIfAbsent(nodeId, k -> new LongAdder()).increment();
        long now = System.nanoTime();
        markedHere.putIfAbsent(nodeId, now);
        Long logged = lastLogged.get(nodeId);
        if (logged == null || now - logged > TimeUnit.SECONDS.toNanos(10)) { // one line per node per 10 s, not per write
            lastLogged.put(nodeId, now);
            LOG.warning(nodeId + " missed an acknowledged write: it must catch up before it serves reads again");
        }
        suspects.add(nodeId);
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

    /** Node side: clears the mark if nobody marked it again since {@code version}; false if someone did. */
    public boolean clear(String nodeId, long version) {
        return map.remove(nodeId, version);
    }

    @Override
    public void close() {
        poll.shutdownNow();
    }
}
