package io.simdex.ops;

import io.grpc.ManagedChannel;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.SimdexGrpc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Queries and inserts through a router from two threads while faults are injected; any failure
 * or wrong answer is recorded in {@link #errors}. The reader asks 50 probes per call and compares
 * each answer with the brute-force one; the writer inserts 20 random fingerprints per call and
 * records each acknowledged one in {@link #acked}. Latencies are kept per named phase.
 */
final class ClusterTraffic {
    final ConcurrentLinkedQueue<long[]> acked = new ConcurrentLinkedQueue<>(); // {index, fp}
    final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    final AtomicLong queries = new AtomicLong();
    final Map<String, List<Double>> latencies = Collections.synchronizedMap(new LinkedHashMap<>());

    private final ManagedChannel channel;
    private final long[] probes;
    private final List<TreeSet<String>> expected;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean writing = new AtomicBoolean();
    private final AtomicLong nextWrite = new AtomicLong();
    private volatile String phase = "before move";
    /** What the test is doing to the cluster now, for error messages only. */
    private volatile String step = "";
    private Thread reader;
    private Thread writer;

    ClusterTraffic(ManagedChannel channel, long[] probes, List<TreeSet<String>> expected) {
        this.channel = channel;
        this.probes = probes;
        this.expected = expected;
    }

    void start(boolean withWriter) {
        reader = new Thread(this::read, "reader");
        reader.start();
        if (withWriter) {
            startWriter();
        }
    }

    /** Names the phase latencies and errors are filed under from now on. */
    void phase(String name) {
        phase = name;
    }

    /** Names what is being done to the cluster, added to each error from now on. */
    void step(String name) {
        step = name;
    }

    private String during() {
        return phase + (step.isEmpty() ? "" : ", " + step);
    }

    /** Starts the writer unless it runs already. */
    synchronized void startWriter() {
        if (writing.compareAndSet(false, true)) {
            writer = new Thread(this::write, "writer");
            writer.start();
        }
    }

    /** Stops the writer (if it runs) and waits for its call in flight. */
    synchronized void stopWriter() throws InterruptedException {
        writing.set(false);
        if (writer != null) {
            writer.join();
        }
    }

    void stop() throws InterruptedException {
        running.set(false);
        stopWriter();
        if (reader != null) {
            reader.join();
        }
    }

    private void read() {
        SplittableRandom rnd = new SplittableRandom(3);
        while (running.get()) {
            int from = rnd.nextInt(probes.length / 50) * 50;
            long[] chunk = Arrays.copyOfRange(probes, from, from + 50);
            long t = System.nanoTime();
            try {
                QueryResponse r = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).query(BruteForce.query(chunk, 3));
                latencies.computeIfAbsent(phase, k -> Collections.synchronizedList(new ArrayList<>())).add((System.nanoTime() - t) / 1e6);
                for (int q = 0; q < chunk.length; q++) {
                    TreeSet<String> got = BruteForce.ids(r, q);
                    if (!got.equals(expected.get(from + q))) {
                        errors.add("probe " + (from + q) + " (" + during() + "): expected " + expected.get(from + q) + ", got " + got);
                    }
                }
                queries.incrementAndGet();
            } catch (RuntimeException e) {
                errors.add("query failed (" + during() + "): " + e);
            }
        }
    }

    /** Random fingerprints: none is near a probe (chance about 1e-13), so the reader's answers stay fixed. */
    private void write() {
        SplittableRandom rnd = new SplittableRandom(nextWrite.get() + 99);
        while (writing.get() && running.get()) {
            long first = nextWrite.getAndAdd(20);
            InsertRequest.Builder req = InsertRequest.newBuilder();
            long[] fps = rnd.longs(20).toArray();
            for (int i = 0; i < 20; i++) {
                req.addDocuments(Document.newBuilder().setId("w-" + (first + i)).setFingerprint(fps[i]));
            }
            try {
                SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).insert(req.build());
                for (int i = 0; i < 20; i++) {
                    acked.add(new long[]{first + i, fps[i]});
                }
            } catch (RuntimeException e) {
                // Not acknowledged: nothing is promised about it (W=1 should still accept with one node down).
                errors.add("insert failed (" + during() + "): " + e);
            }
        }
    }

    /** Counts for a timeout message: {@code 1,234 queries, 5,680 acknowledged writes, 0 errors}. */
    @Override
    public String toString() {
        return String.format("%,d queries, %,d acknowledged writes, %d errors%s", queries.get(), acked.size(), errors.size(),
                errors.isEmpty() ? "" : " (first: " + errors.get(0) + ")");
    }
}
