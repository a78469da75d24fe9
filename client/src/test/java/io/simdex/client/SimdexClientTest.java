package io.simdex.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.StatsResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SimdexClientTest {
    private final FakeSimdex fake = new FakeSimdex();
    private InProcessServer server;
    private SimdexClient client;

    @BeforeEach
    void start() throws Exception {
        server = InProcessServer.start(fake);
        client = SimdexClient.over(server.channel());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.close();
    }

    @Test
    void insert_batchOverLimit_splitsIntoThreeCallsInOrder() {
        List<Doc> docs = docs(25_000);

        assertEquals(25_000, client.insert(null, docs));

        assertEquals(List.of(10_000, 10_000, 5_000), fake.insertCalls.stream().map(List::size).toList());
        List<String> sent = fake.insertCalls.stream().flatMap(List::stream).toList();
        assertEquals(docs.stream().map(Doc::id).toList(), sent);
        assertEquals(sent, new ArrayList<>(fake.documents("default").keySet()));
    }

    @Test
    void query_probesOverMaxBatch_splitsAndKeepsProbeOrder() {
        client.insert("default", docs(10));
        List<Long> probes = IntStream.range(0, 10).mapToObj(i -> fingerprint(9 - i)).toList();

        List<ProbeMatches> results;
        try (SimdexClient small = SimdexClient.over(server.channel(), ClientOptions.DEFAULTS.withMaxBatch(4))) {
            results = small.query(null, probes, 0, 0);
        }

        assertEquals(List.of(4, 4, 2), fake.queryCalls);
        for (int i = 0; i < 10; i++) {
            assertEquals(probes.get(i), results.get(i).fingerprint());
            assertEquals(List.of(new Match(id(9 - i), fingerprint(9 - i), 0)), results.get(i).matches());
        }
    }

    @Test
    void query_textAndLimit_returnsNearestFirst() {
        long base = FakeSimdex.fingerprintOf("hello");
        client.insert(null, List.of(Doc.of("far", base ^ 0b111), Doc.of("near", base ^ 0b1), Doc.ofText("same", "hello")));

        List<ProbeMatches> results = client.queryTexts(null, List.of("hello"), 3, 2);

        assertEquals(List.of(new Match("same", base, 0), new Match("near", base ^ 1, 1)), results.get(0).matches());
    }

    @Test
    void dedup_nearDuplicateInSameList_notInserted() {
        List<DedupDecision> decisions = client.dedup(null, List.of(Doc.of("a", 0xf0L), Doc.of("b", 0xf1L)), 1);

        assertTrue(decisions.get(0).inserted());
        assertFalse(decisions.get(1).inserted());
        assertEquals(List.of(new Match("a", 0xf0L, 1)), decisions.get(1).duplicates());
    }

    @Test
    void delete_knownAndUnknownIds_countsBoth() {
        client.insert(null, docs(3));

        assertEquals(new DeleteCounts(2, 1), client.delete(null, List.of(id(0), id(2), "nope")));
    }

    @Test
    void emptyList_makesNoCall() {
        assertEquals(0, client.insert(null, List.of()));
        assertEquals(List.of(), client.query(null, List.of(), 3, 0));
        assertTrue(fake.insertCalls.isEmpty() && fake.queryCalls.isEmpty());
    }

    @Test
    void unknownCollection_surfacesNotFound() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> client.stats("missing"));
        assertEquals(Status.Code.NOT_FOUND, e.getStatus().getCode());
    }

    @Test
    void createCollection_twice_secondReportsExisting() {
        assertTrue(client.createCollection("books"));
        assertFalse(client.createCollection("books"));
        assertEquals(List.of("default", "books"), client.listCollections().stream().map(CollectionInfo::name).toList());
    }

    @Test
    void fingerprintAndStats_returnServerValues() {
        assertEquals(List.of(FakeSimdex.fingerprintOf("x"), FakeSimdex.fingerprintOf("y")),
                client.fingerprint(null, List.of("x", "y")));
        client.insert(null, docs(5));
        assertEquals(5, client.stats(null).documents());
    }

    @Test
    void call_serverNeverAnswers_deadlineExceeded() throws Exception {
        SimdexGrpc.SimdexImplBase silent = new SimdexGrpc.SimdexImplBase() {
            @Override
            public void stats(StatsRequest request, StreamObserver<StatsResponse> responseObserver) {
                // Never answers: only the client's deadline ends the call.
            }
        };
        try (InProcessServer hung = InProcessServer.start(silent);
             SimdexClient impatient = SimdexClient.over(hung.channel(),
                     ClientOptions.DEFAULTS.withDeadline(Duration.ofMillis(200)))) {
            long start = System.nanoTime();
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> impatient.stats(null));
            assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos());
        }
    }

    @Test
    void queryProbes_negativeDistance_rejectedBeforeCalling() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> client.query(null, List.of(1L), -2, 0));
        assertTrue(e.getMessage().contains("-2"));
        assertTrue(fake.queryCalls.isEmpty());
    }

    @Test
    void queryAndDedup_collectionDistance_sendNoMaxDistance() {
        client.query(null, List.of(1L), SimdexClient.COLLECTION_DISTANCE, 0);
        assertFalse(fake.queryRequests.get(0).hasMaxDistance(), "the server applies the collection's distance");
        client.query(null, List.of(1L), 2, 0);
        assertEquals(2, fake.queryRequests.get(1).getMaxDistance().getValue());
    }

    @Test
    void doc_bothOrNeitherContent_rejected() {
        assertThrows(IllegalArgumentException.class, () -> new Doc("a", 1L, "text"));
        assertThrows(IllegalArgumentException.class, () -> new Doc("a", null, null));
    }

    static List<Doc> docs(int n) {
        return IntStream.range(0, n).mapToObj(i -> Doc.of(id(i), fingerprint(i))).toList();
    }

    static String id(int i) {
        return String.format("d%06d", i);
    }

    /** Distinct fingerprints at least 4 bits apart, with the top bit set on odd i. */
    static long fingerprint(int i) {
        return ((long) i << 8 | 0x0f) ^ ((i & 1) == 1 ? Long.MIN_VALUE | 0xf0 : 0);
    }
}
