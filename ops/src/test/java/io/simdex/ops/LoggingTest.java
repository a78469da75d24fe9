package io.simdex.ops;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.DeleteCollectionRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.StatsResponse;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.store.CollectionStore;
import io.simdex.server.store.MapFiles;
import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server process's log file (logback-server.xml) holds each INTERNAL's request id with the
 * stack trace the caller never sees, and one line for a store recovered after a kill.
 */
class LoggingTest {
    @TempDir
    Path dir;

    @AfterEach
    void restoreDefault() throws Exception {
        System.clearProperty(Logging.LOG_DIR);
        configure("logback.xml");
    }

    @Test
    void internalError_requestIdInTheStatus_stackTraceUnderItInTheRollingFile() throws Exception {
        System.setProperty(Logging.LOG_DIR, dir.toString());
        System.setProperty("simdex.process", "router");
        configure("logback-server.xml");
        SimdexGrpc.SimdexImplBase failing = new SimdexGrpc.SimdexImplBase() {
            @Override
            public void stats(StatsRequest req, StreamObserver<StatsResponse> out) {
                throw new IllegalStateException("secret detail of an unexpected failure");
            }
        };
        try (PublicServer server = PublicServer.start("127.0.0.1", 0, failing, SimdexGrpc.SERVICE_NAME)) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            try {
                StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
                        () -> SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).stats(StatsRequest.getDefaultInstance()));
                assertEquals(Status.Code.INTERNAL, e.getStatus().getCode());
                String description = e.getStatus().getDescription();
                assertFalse(description.contains("secret"), description);
                String id = description.substring(description.lastIndexOf(' ') + 1);
                String log = Files.readString(dir.resolve("simdex-router.log"));
                assertTrue(log.contains("request id " + id) && log.contains("java.lang.IllegalStateException: secret detail of an unexpected failure")
                        && log.contains("at io.simdex.ops.LoggingTest"), log);

                // An audited call, here one the service does not implement, is in the audit file of its own.
                assertThrows(StatusRuntimeException.class, () -> SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                        .deleteCollection(DeleteCollectionRequest.newBuilder().setName("news").build()));
                Path auditFile = dir.resolve("simdex-router-audit.log");
                Await.until("the audit file names the call", java.time.Duration.ofSeconds(10), () -> read(auditFile),
                        text -> text.contains("audit: DeleteCollection name=news by no token from /127.0.0.1:"), () -> "");
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void storeRecoveredAfterAKill_oneLineOfSimdex_notChronicleMapsTwoWarningsPerFile() throws Exception {
        System.setProperty(Logging.LOG_DIR, dir.resolve("logs").toString());
        System.setProperty("simdex.process", "node");
        configure("logback-server.xml");
        Path store = dir.resolve("store");
        try (CollectionStore s = CollectionStore.open(store, StoreSizing.forShare(1_000, 1, 8))) {
            s.docs().bind("a", 42L);
        }
        // What a kill leaves: the store's files without the marker of a clean close.
        Files.delete(store.resolve(MapFiles.CLEAN_MARKER));
        try (CollectionStore s = CollectionStore.open(store, StoreSizing.forShare(1_000, 1, 8))) {
            assertEquals(java.util.OptionalLong.of(42L), s.docs().fingerprintOf("a"));
        }
        org.slf4j.Logger chronicle = LoggerFactory.getLogger(ChronicleRecoveryWarnings.LOGGER);
        chronicle.warn("File header is not recoverable, file=x.cm");

        String log = read(dir.resolve("logs").resolve("simdex-node.log"));
        assertTrue(log.contains(store + " was not closed cleanly (killed, its machine stopped, or copied while open): recovering its map files"), log);
        assertFalse(log.contains("Recovery operation needs exclusive access") || log.contains("Do not use recovery"), log);
        assertTrue(log.contains("WARN  net.openhft.chronicle.map.ChronicleMapBuilder - File header is not recoverable, file=x.cm"),
                "Chronicle Map's other warnings pass: " + log);
    }

    @Test
    void atomixBootstrapWarning_firstOfTheProcessDropped_laterOnesAndOthersPass() throws Exception {
        System.setProperty(Logging.LOG_DIR, dir.toString());
        System.setProperty("simdex.process", "router");
        configure("logback-server.xml");
        org.slf4j.Logger atomix = LoggerFactory.getLogger(AtomixStartWarnings.LOGGER);
        String warning = AtomixStartWarnings.FIRST_ATTEMPT + ". Please ensure partition groups are configured either locally or remotely";
        atomix.warn(warning);
        atomix.warn("Failed to locate partition group(s) via bootstrap nodes.");
        String log = read(dir.resolve("simdex-router.log"));
        assertFalse(log.contains(AtomixStartWarnings.FIRST_ATTEMPT), log);
        assertTrue(log.contains("Failed to locate partition group(s) via bootstrap nodes."), "another warning of that logger passes: " + log);

        atomix.warn(warning);
        atomix.warn(warning);
        log = read(dir.resolve("simdex-router.log"));
        assertEquals(2, log.split(AtomixStartWarnings.FIRST_ATTEMPT, -1).length - 1, "the second attempt's and later warnings pass: " + log);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void configure(String resource) throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LoggingTest.class.getClassLoader().getResource(resource));
    }
}
