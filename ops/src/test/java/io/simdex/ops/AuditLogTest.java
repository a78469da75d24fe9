package io.simdex.ops;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.DoubleValue;
import com.google.protobuf.UInt32Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.client.ClientOptions;
import io.simdex.client.ClientTls;
import io.simdex.client.Doc;
import io.simdex.client.SimdexClient;
import io.simdex.client.tls.TestCertificates;
import io.simdex.proto.v1.UpdateCollectionRequest;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.security.ServerSecurity;
import io.simdex.router.security.TokenTable;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded default with mutual TLS and tokens: calls that change what it keeps are in the
 * audit log (logger {@code simdex.audit}) with the token's hash, the client certificate, the
 * address and how they ended, refusals included; ordinary writes and reads are not; no token is
 * ever logged.
 */
class AuditLogTest {
    @TempDir
    Path dir;

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();
    private EmbeddedSimdex server;

    @AfterEach
    void stop() {
        ((Logger) LoggerFactory.getLogger("simdex.audit")).detachAppender(audit);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void collectionAndDeleteCalls_areAudited_withWhoAndHowTheyEnded() throws Exception {
        audit.start();
        ((Logger) LoggerFactory.getLogger("simdex.audit")).addAppender(audit);
        Path auth = Files.writeString(dir.resolve("auth"), "admin * " + TokenTable.hashOf("admin-token") + "\n"
                + "write default " + TokenTable.hashOf("writer-token") + "\n");
        TestCertificates certs = TestCertificates.make(Files.createDirectories(dir.resolve("certs")));
        server = EmbeddedSimdex.start(dir.resolve("data"), 1, "127.0.0.1", 0, 10_000, HandlerThreads.perCore(), true, Clock.systemUTC(),
                Durability.PROCESS, ServerSecurity.builder().tls(certs.serverCert, certs.serverKey).clientCa(certs.ca).authFile(auth).build());
        String target = "localhost:" + server.port();
        ClientOptions options = ClientOptions.DEFAULTS.withDeadline(Duration.ofSeconds(20))
                .withTls(ClientTls.trusting(certs.ca).withCertificate(certs.clientCert, certs.clientKey));
        try (SimdexClient admin = SimdexClient.connect(target, options.withToken("admin-token"));
             SimdexClient writer = SimdexClient.connect(target, options.withToken("writer-token"))) {
            admin.createCollection("news");
            writer.insert("default", List.of(Doc.of("a", 1L), Doc.of("b", 2L)));
            writer.delete("default", List.of("a", "b", "c"));
            StatusRuntimeException refused = assertThrows(StatusRuntimeException.class, () -> writer.deleteCollection("news"));
            assertEquals(Status.Code.PERMISSION_DENIED, refused.getStatus().getCode());
            admin.updateCollection("news", UpdateCollectionRequest.newBuilder().setMaxDistance(UInt32Value.of(2))
                    .setSketchMinJaccard(DoubleValue.of(0.5)).build());
        }

        String admin = "token sha256:" + TokenTable.hashOf("admin-token").substring("sha256:".length(), "sha256:".length() + 16);
        String writer = "token sha256:" + TokenTable.hashOf("writer-token").substring("sha256:".length(), "sha256:".length() + 16);
        List<String> lines = awaitLines(4);
        assertTrue(lines.get(0).matches("audit: CreateCollection name=news by " + admin + " cert \"CN=crawler\" from /127\\.0\\.0\\.1:[0-9]+: OK"), lines.get(0));
        assertTrue(lines.get(1).matches("audit: Delete collection=default ids=3 by " + writer + " cert \"CN=crawler\" from /127\\.0\\.0\\.1:[0-9]+: OK"), lines.get(1));
        assertTrue(lines.get(2).matches("audit: DeleteCollection name=news by " + writer + " cert \"CN=crawler\" from /127\\.0\\.0\\.1:[0-9]+: PERMISSION_DENIED \\(.*\\)"),
                lines.get(2));
        assertTrue(lines.get(3).matches("audit: UpdateCollection name=news max_distance=2 sketch_min_jaccard=0\\.5 by " + admin
                + " cert \"CN=crawler\" from /127\\.0\\.0\\.1:[0-9]+: OK"), lines.get(3));
        assertTrue(lines.stream().noneMatch(l -> l.contains("-token")), "no token in the log");
    }

    /** A call's close reaches the log on the transport's thread, just after the client has its answer. */
    private List<String> awaitLines(int n) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (audit.list.size() < n && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        List<String> lines = audit.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertEquals(n, lines.size(), lines.toString());
        return lines;
    }
}
