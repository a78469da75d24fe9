package io.simdex.ops;

import com.google.protobuf.UInt32Value;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.SimdexGrpc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Concurrent clients sending Dedup batches of 1..8 documents to routers picked at random. A call
 * that fails puts its documents back for another attempt and marks them uncertain (the failed
 * attempt may have stored them); every document ends with one decision, its last.
 */
final class DedupRace {
    static final String COLLECTION = "race";
    static final int K = 3;
    private static final int CLIENTS = 8;

    record Doc(String id, long fp) {
    }

    private final Map<String, DedupResult> decisions = new ConcurrentHashMap<>();
    private final Set<String> uncertain = ConcurrentHashMap.newKeySet();
    private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
    private volatile List<ManagedChannel> routers;

    DedupRace(List<ManagedChannel> routers) {
        this.routers = routers;
    }

    /**
     * Groups of a random centre and 3 variants one bit from it, each its own bit: every two
     * members are within 2, so exactly one per group is kept whatever the order. Ids are
     * {@code gG-V}; group g is documents 4g..4g+3.
     */
    static List<Doc> tightGroups(int groups, SplittableRandom rnd) {
        List<Doc> docs = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            long centre = rnd.nextLong();
            docs.add(new Doc("g" + g + "-0", centre));
            int first = rnd.nextInt(61);
            for (int v = 1; v <= 3; v++) {
                docs.add(new Doc("g" + g + "-" + v, centre ^ (1L << (first + v))));
            }
        }
        return docs;
    }

    /** From now on, calls go to these routers. */
    void routeTo(List<ManagedChannel> routers) {
        this.routers = routers;
    }

    void run(List<Doc> docs) throws Exception {
        start(docs).await();
    }

    Running start(List<Doc> docs) {
        List<Doc> shuffled = new ArrayList<>(docs);
        Collections.shuffle(shuffled, new java.util.Random(docs.size()));
        Running r = new Running(new LinkedBlockingQueue<>(shuffled), docs.size());
        for (int c = 0; c < CLIENTS; c++) {
            r.futures.add(r.pool.submit(() -> r.client(docs)));
        }
        return r;
    }

    Collection<DedupResult> decisions() {
        return decisions.values();
    }

    /** Documents with a failed attempt. */
    Set<String> uncertain() {
        return uncertain;
    }

    /** Each failed call's status. */
    List<String> failures() {
        synchronized (failures) {
            return List.copyOf(failures);
        }
    }

    /** One batch of documents being decided. */
    final class Running {
        private final LinkedBlockingQueue<Doc> queue;
        private final int total;
        private final ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        private final List<Future<?>> futures = new ArrayList<>();
        private final Set<String> decidedHere = ConcurrentHashMap.newKeySet();

        private Running(LinkedBlockingQueue<Doc> queue, int total) {
            this.queue = queue;
            this.total = total;
        }

        private Void client(List<Doc> docs) throws InterruptedException {
            while (decidedHere.size() < total) {
                Doc first = queue.poll(20, TimeUnit.MILLISECONDS); // none left: others' calls may still fail and return theirs
                if (first == null) {
                    continue;
                }
                List<Doc> batch = new ArrayList<>(List.of(first));
                queue.drainTo(batch, ThreadLocalRandom.current().nextInt(8));
                DedupRequest.Builder req = DedupRequest.newBuilder().setCollection(COLLECTION).setMaxDistance(UInt32Value.of(K));
                batch.forEach(d -> req.addDocuments(Document.newBuilder().setId(d.id()).setFingerprint(d.fp())));
                List<ManagedChannel> to = routers;
                try {
                    DedupResponse r = SimdexGrpc.newBlockingStub(to.get(ThreadLocalRandom.current().nextInt(to.size())))
                            .withDeadlineAfter(60, TimeUnit.SECONDS).dedup(req.build());
                    for (DedupResult d : r.getResultsList()) {
                        decisions.put(d.getId(), d);
                        decidedHere.add(d.getId());
                    }
                } catch (StatusRuntimeException e) {
                    failures.add(e.getStatus().toString());
                    batch.forEach(d -> uncertain.add(d.id()));
                    queue.addAll(batch);
                }
            }
            return null;
        }

        int decided() {
            return decidedHere.size();
        }

        /** Waits until {@code n} documents are decided (a timeout shows the cluster's logs). */
        void awaitDecided(int n, ProcessCluster cluster) throws InterruptedException {
            cluster.await(n + " documents decided", this::decided, d -> d >= n, String::valueOf);
        }

        /** Waits until every document has a decision. */
        void await() throws Exception {
            try {
                for (Future<?> f : futures) {
                    f.get(Duration.ofMinutes(5).toMillis(), TimeUnit.MILLISECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
