package io.simdex.loadtest.echo;

import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.CheckUrlsResponse;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.HandlingTimesRequest;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.InsertResponse;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.QueryResult;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.router.transport.HandlingTimes;
import io.simdex.router.transport.InlineCalls;
import io.simdex.router.transport.PublicServer;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gRPC floor: {@code simdex.v1.Simdex} answering Query, Dedup, Insert, BulkLoad and CheckUrls with
 * responses of the shape simdex gives for the generator's planted workload, and doing nothing
 * else. Served by the same {@link PublicServer} as simdex (same Netty settings, health and
 * reflection), so "simdex reached X% of the echo" isolates the index's cost.
 *
 * <p>Shapes: planted probes cycle through distances 0..5 and simdex finds those within 3, so four
 * probes in six get one match and two get none; half of the generator's Dedup documents are
 * duplicates (not inserted, one duplicate listed), half are inserted; half of its URLs are new.
 * HandlingTimes answers as
 * simdex's does; other RPCs are UNIMPLEMENTED.
 */
public final class EchoService extends SimdexGrpc.SimdexImplBase {
    private static final int PLANTED_CYCLE = 6;
    private static final int FOUND_PER_CYCLE = 4;

    private final AtomicLong probes = new AtomicLong();
    private final HandlingTimes handlingTimes = new HandlingTimes();

    /**
     * Serves the echo on 127.0.0.1:{@code port} (0 picks a free port) dispatched like the embedded
     * default: one handler thread per core, small fingerprint queries on the transport thread.
     */
    public static PublicServer serve(int port) {
        return serve(port, HandlerThreads.perCore(), true);
    }

    /** As {@link #serve(int)}, on {@code threads} handler threads (0: gRPC's unbounded pool), with or without inline reads. */
    public static PublicServer serve(int port, int threads, boolean inlineReads) {
        EchoService echo = new EchoService();
        return PublicServer.start("127.0.0.1", port, echo.bindService(), SimdexGrpc.SERVICE_NAME, List.of(), threads,
                inlineReads ? InlineCalls.SIMDEX_READS : Map.of(), echo.handlingTimes);
    }

    /** Timed like simdex, so server-side handling times have a floor too. */
    @Override
    public void handlingTimes(HandlingTimesRequest req, StreamObserver<HandlingTimesResponse> out) {
        out.onNext(handlingTimes.snapshot(req.getReset()));
        out.onCompleted();
    }

    @Override
    public void query(QueryRequest req, StreamObserver<QueryResponse> out) {
        QueryResponse.Builder b = QueryResponse.newBuilder();
        long n = probes.getAndAdd(req.getProbesCount());
        for (Probe p : req.getProbesList()) {
            QueryResult.Builder r = b.addResultsBuilder().setFingerprint(p.getFingerprint());
            if (n++ % PLANTED_CYCLE < FOUND_PER_CYCLE) {
                r.addMatches(cannedMatch(p.getFingerprint(), n));
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    @Override
    public void dedup(DedupRequest req, StreamObserver<DedupResponse> out) {
        DedupResponse.Builder b = DedupResponse.newBuilder();
        for (int i = 0; i < req.getDocumentsCount(); i++) {
            Document d = req.getDocuments(i);
            DedupResult.Builder r = b.addResultsBuilder().setId(d.getId()).setFingerprint(d.getFingerprint());
            if (i % 2 == 0) {
                r.addDuplicates(cannedMatch(d.getFingerprint(), i));
            } else {
                r.setInserted(true);
            }
        }
        out.onNext(b.build());
        out.onCompleted();
    }

    /** Every other URL new, as the generator's default --dup-fraction of 0.5 makes them. */
    @Override
    public void checkUrls(CheckUrlsRequest req, StreamObserver<CheckUrlsResponse> out) {
        CheckUrlsResponse.Builder b = CheckUrlsResponse.newBuilder();
        for (int i = 0; i < req.getUrlsCount(); i++) {
            b.addIsNew(i % 2 == 1);
        }
        out.onNext(b.setNewCount(req.getUrlsCount() / 2).build());
        out.onCompleted();
    }

    @Override
    public void insert(InsertRequest req, StreamObserver<InsertResponse> out) {
        out.onNext(InsertResponse.newBuilder().setInserted(req.getDocumentsCount()).build());
        out.onCompleted();
    }

    @Override
    public StreamObserver<BulkLoadRequest> bulkLoad(StreamObserver<BulkLoadResponse> out) {
        return new StreamObserver<>() {
            private long inserted;
            private long batches;

            @Override
            public void onNext(BulkLoadRequest req) {
                inserted += req.getDocumentsCount();
                batches++;
            }

            @Override
            public void onError(Throwable t) {
                // The client gave up; nothing to clean.
            }

            @Override
            public void onCompleted() {
                out.onNext(BulkLoadResponse.newBuilder().setInserted(inserted).setBatches(batches).build());
                out.onCompleted();
            }
        };
    }

    /** A match the size of a real one: a 7-character id like the loader's, a fingerprint, a distance. */
    private static Match cannedMatch(long fingerprint, long n) {
        return Match.newBuilder().setId("d" + (100_000 + n % 900_000)).setFingerprint(fingerprint).setDistance(1).build();
    }
}
