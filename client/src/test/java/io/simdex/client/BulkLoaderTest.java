package io.simdex.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.SimdexGrpc;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BulkLoaderTest {
    @Test
    void close_hundredThousandDocs_sentInBatchesAndCounted() throws Exception {
        FakeSimdex fake = new FakeSimdex();
        try (InProcessServer server = InProcessServer.start(fake);
             SimdexClient client = SimdexClient.over(server.channel())) {
            BulkLoader loader = client.bulkLoader(null, 1_000);
            for (int i = 0; i < 100_000; i++) {
                loader.add(Doc.of("d" + i, i));
            }

            assertEquals(100_000, loader.close());
            assertEquals(Collections.nCopies(100, 1_000), fake.bulkBatches);
            assertEquals(100_000, fake.documents("default").size());
        }
    }

    @Test
    void close_partialLastBatch_sentOnClose() throws Exception {
        FakeSimdex fake = new FakeSimdex();
        try (InProcessServer server = InProcessServer.start(fake);
             SimdexClient client = SimdexClient.over(server.channel())) {
            BulkLoader loader = client.bulkLoader("default", 1_000);
            SimdexClientTest.docs(2_500).forEach(loader::add);

            assertEquals(2_500, loader.close());
            assertEquals(List.of(1_000, 1_000, 500), fake.bulkBatches);
        }
    }

    @Test
    void add_serverNotReading_blocksInsteadOfBuffering() throws Exception {
        ManualFlowServer slow = new ManualFlowServer(2);
        try (InProcessServer server = InProcessServer.start(slow);
             SimdexClient client = SimdexClient.over(server.channel())) {
            BulkLoader loader = client.bulkLoader(null, 10);
            CompletableFuture<Long> producer = new CompletableFuture<>();
            Thread producing = new Thread(() -> {
                SimdexClientTest.docs(200).forEach(loader::add);
                producer.complete(loader.close());
            });
            producing.start();
            assertTrue(slow.started.await(5, TimeUnit.SECONDS));

            // Two batches were requested by the server; the producer must be parked on the third.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (loader.sentBatches() != 2 || producing.getState() != Thread.State.WAITING) {
                assertFalse(producer.isDone(), "the producer finished while the server read nothing: it buffered");
                assertTrue(System.nanoTime() < deadline,
                        "the producer did not wait after two batches: sent " + loader.sentBatches() + ", " + producing.getState());
                Thread.sleep(5);
            }
            assertFalse(producer.isDone());

            slow.call.request(100);
            assertEquals(200, producer.get(5, TimeUnit.SECONDS));
            assertEquals(20, slow.received.get());
        }
    }

    @Test
    void close_serverNeverAnswers_deadlineExceeded() throws Exception {
        ManualFlowServer silent = new ManualFlowServer(Integer.MAX_VALUE);
        silent.answer = false;
        ClientOptions options = ClientOptions.DEFAULTS.withBulkLoadDeadline(Duration.ofMillis(300));
        try (InProcessServer server = InProcessServer.start(silent);
             SimdexClient client = SimdexClient.over(server.channel(), options)) {
            BulkLoader loader = client.bulkLoader(null, 10);
            loader.add(Doc.of("a", 1));

            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, loader::close);
            assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode());
        }
    }

    @Test
    void bulkLoader_batchSizeOverMaxBatch_rejected() throws Exception {
        try (InProcessServer server = InProcessServer.start(new FakeSimdex());
             SimdexClient client = SimdexClient.over(server.channel())) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> client.bulkLoader(null, 10_001));
            assertTrue(e.getMessage().contains("10001"));
        }
    }

    /** A BulkLoad server that asks for messages only when the test says so. */
    private static final class ManualFlowServer extends SimdexGrpc.SimdexImplBase {
        final CountDownLatch started = new CountDownLatch(1);
        final AtomicLong received = new AtomicLong();
        final int initialRequest;
        volatile ServerCallStreamObserver<BulkLoadResponse> call;
        volatile boolean answer = true;

        ManualFlowServer(int initialRequest) {
            this.initialRequest = initialRequest;
        }

        @Override
        public StreamObserver<BulkLoadRequest> bulkLoad(StreamObserver<BulkLoadResponse> responses) {
            call = (ServerCallStreamObserver<BulkLoadResponse>) responses;
            call.disableAutoRequest();
            call.request(initialRequest);
            started.countDown();
            return new StreamObserver<>() {
                private long docs;

                @Override
                public void onNext(BulkLoadRequest batch) {
                    received.incrementAndGet();
                    docs += batch.getDocumentsCount();
                }

                @Override
                public void onError(Throwable t) {
                }

                @Override
                public void onCompleted() {
                    if (answer) {
                        responses.onNext(BulkLoadResponse.newBuilder().setInserted(docs).build());
                        responses.onCompleted();
                    }
                }
            };
        }
    }
}
