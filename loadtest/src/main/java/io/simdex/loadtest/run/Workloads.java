package io.simdex.loadtest.run;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.UInt32Value;
import io.grpc.ManagedChannel;
import io.simdex.core.Hashing;
import io.simdex.loadtest.gen.Fingerprints;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The workloads of {@code run} and {@code sweep}. Query requests are built before the clock
 * starts, in a pool of up to 200,000 probes that calls cycle through; Dedup and Insert build each
 * request when it is sent (ids must be new), and that time is inside the measured latency.
 */
public final class Workloads {
    /** Probes built ahead for Query, spread over the pool's requests. */
    private static final int QUERY_POOL_PROBES = 200_000;
    private static final int MAX_POOL_REQUESTS = 65_536;

    private Workloads() {
    }

    public static Workload create(WorkloadOptions o, ManagedChannel[] channels, Duration timeout) {
        o.validate();
        SimdexGrpc.SimdexFutureStub[] stubs = new SimdexGrpc.SimdexFutureStub[channels.length];
        for (int i = 0; i < channels.length; i++) {
            stubs[i] = SimdexGrpc.newFutureStub(channels[i]);
        }
        long deadlineNanos = timeout.toNanos();
        long nonce = System.nanoTime();
        // Numbered per workload, not by the run's call number: every run (and the warm-up) starts at call 0,
        // and a run that sent the previous run's documents again would measure retries, not new documents.
        AtomicLong built = new AtomicLong();
        return switch (o.method) {
            case query -> query(o, stubs, deadlineNanos);
            case dedup -> new Built(o.batch, (seq, stub) -> stub.dedup(dedupRequest(o, nonce, built.getAndIncrement())), stubs, deadlineNanos);
            case insert -> new Built(o.batch, (seq, stub) -> stub.insert(insertRequest(o, nonce, built.getAndIncrement())), stubs, deadlineNanos);
            case urls -> new Built(o.batch, (seq, stub) -> stub.checkUrls(urlsRequest(o, nonce, built.getAndIncrement())), stubs, deadlineNanos);
        };
    }

    private static Workload query(WorkloadOptions o, SimdexGrpc.SimdexFutureStub[] stubs, long deadlineNanos) {
        int requests = Math.max(1, Math.min(MAX_POOL_REQUESTS, QUERY_POOL_PROBES / o.batch));
        long[] probes = ProbeSource.probes(o, (long) requests * o.batch);
        List<QueryRequest> pool = new ArrayList<>(requests);
        for (int r = 0; r < requests; r++) {
            QueryRequest.Builder b = QueryRequest.newBuilder().setCollection(o.collection).setMaxDistance(UInt32Value.of(o.maxDistance));
            for (int p = 0; p < o.batch; p++) {
                b.addProbes(Probe.newBuilder().setFingerprint(probes[r * o.batch + p]));
            }
            pool.add(b.build());
        }
        return new Built(o.batch, (seq, stub) -> stub.query(pool.get((int) (seq % pool.size()))), stubs, deadlineNanos);
    }

    static DedupRequest dedupRequest(WorkloadOptions o, long nonce, long seq) {
        SplittableRandom r = new SplittableRandom(Hashing.mix64(nonce ^ seq));
        DedupRequest.Builder b = DedupRequest.newBuilder().setCollection(o.collection).setMaxDistance(UInt32Value.of(o.maxDistance));
        String prefix = "dd-" + Long.toHexString(nonce) + "-" + seq + "-";
        for (int j = 0; j < o.batch; j++) {
            long fp = r.nextDouble() < o.dupFraction
                    ? Fingerprints.planted(o.seed, o.stored, r.nextInt(4), r).fingerprint()
                    : Fingerprints.fresh(r);
            b.addDocuments(Document.newBuilder().setId(prefix + j).setFingerprint(fp));
        }
        return b.build();
    }

    static InsertRequest insertRequest(WorkloadOptions o, long nonce, long seq) {
        SplittableRandom r = new SplittableRandom(Hashing.mix64(nonce ^ seq));
        InsertRequest.Builder b = InsertRequest.newBuilder().setCollection(o.collection);
        String prefix = "in-" + Long.toHexString(nonce) + "-" + seq + "-";
        for (int j = 0; j < o.batch; j++) {
            b.addDocuments(Document.newBuilder().setId(prefix + j).setFingerprint(Fingerprints.fresh(r)));
        }
        return b.build();
    }

    /** URLs of a seen pool shared by every run. */
    static final int URL_POOL = 100_000;

    /**
     * A crawl job's CheckUrls of {@code o.batch} URLs, kept 7 days: each URL with chance
     * {@code o.dupFraction} one of {@link #URL_POOL} every request draws from (seen once the
     * pool has been drawn), else one no request sent before.
     */
    static CheckUrlsRequest urlsRequest(WorkloadOptions o, long nonce, long seq) {
        SplittableRandom r = new SplittableRandom(Hashing.mix64(nonce ^ seq));
        CheckUrlsRequest.Builder b = CheckUrlsRequest.newBuilder().setJob(o.collection.isEmpty() ? "loadtest" : o.collection)
                .setTtlSeconds(7 * 24 * 3600);
        String fresh = "https://new" + Long.toHexString(nonce) + ".example/" + seq + "/";
        for (int j = 0; j < o.batch; j++) {
            b.addUrls(r.nextDouble() < o.dupFraction ? "https://seen.example/page/" + r.nextInt(URL_POOL) : fresh + j);
        }
        return b.build();
    }

    /** How a workload turns a sequence number into a call on a stub. */
    @FunctionalInterface
    interface Caller {
        ListenableFuture<?> call(long seq, SimdexGrpc.SimdexFutureStub stub);
    }

    /** Calls spread round-robin over the connections, each with its own deadline. */
    private record Built(int itemsPerCall, Caller caller, SimdexGrpc.SimdexFutureStub[] stubs, long deadlineNanos)
            implements Workload {
        @Override
        public ListenableFuture<?> call(long seq) {
            SimdexGrpc.SimdexFutureStub stub = stubs[(int) (seq % stubs.length)].withDeadlineAfter(deadlineNanos, TimeUnit.NANOSECONDS);
            return caller.call(seq, stub);
        }
    }
}
