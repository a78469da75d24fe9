package io.simdex.client.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.simdex.client.ClientOptions;
import io.simdex.client.ClientTls;
import io.simdex.client.Doc;
import io.simdex.client.SimdexClient;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.security.ServerSecurity;
import io.simdex.server.tls.CertificatesInUse;
import io.simdex.router.security.TokenTable;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** The embedded server with TLS, client certificates and tokens, over real loopback sockets. */
class SecureServerTest {
    private static final ClientOptions OPTIONS = ClientOptions.DEFAULTS.withDeadline(Duration.ofSeconds(20));

    @TempDir
    static Path certDir;
    static TestCertificates certs;

    @TempDir
    Path dir;
    private EmbeddedSimdex server;

    @BeforeAll
    static void certificates() throws Exception {
        certs = TestCertificates.make(certDir);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private String start(ServerSecurity security) {
        server = EmbeddedSimdex.start(dir.resolve("data"), 1, "127.0.0.1", 0, 10_000, HandlerThreads.perCore(), true,
                Clock.systemUTC(), Durability.PROCESS, security);
        return "127.0.0.1:" + server.port();
    }

    private static SimdexClient client(String target, ClientOptions options) {
        return SimdexClient.connect(target, options);
    }

    private static Status.Code codeOf(Executable call) {
        return assertThrows(StatusRuntimeException.class, call).getStatus().getCode();
    }

    @Test
    void tls_plaintextClient_refused() {
        String target = start(ServerSecurity.builder().tls(certs.serverCert, certs.serverKey).build());
        try (SimdexClient c = client(target, OPTIONS)) {
            assertEquals(Status.Code.UNAVAILABLE, codeOf(c::listCollections));
        }
    }

    @Test
    void tls_clientTrustingTheCa_works_clientTrustingOthers_refused() {
        String target = start(ServerSecurity.builder().tls(certs.serverCert, certs.serverKey).build());
        try (SimdexClient c = client(target, OPTIONS.withTls(ClientTls.trusting(certs.ca)))) {
            assertEquals(1, c.insert("default", List.of(Doc.of("a", 42L))));
            assertTrue(c.listCollections().stream().anyMatch(i -> i.name().equals("default")));
        }
        try (SimdexClient c = client(target, OPTIONS.withTls(ClientTls.SYSTEM_ROOTS))) {
            assertEquals(Status.Code.UNAVAILABLE, codeOf(c::listCollections));
        }
    }

    @Test
    void mutualTls_clientCertificateOfTheClientCa_only() {
        String target = start(ServerSecurity.builder().tls(certs.serverCert, certs.serverKey).clientCa(certs.ca).build());
        ClientTls tls = ClientTls.trusting(certs.ca);
        try (SimdexClient none = client(target, OPTIONS.withTls(tls));
             SimdexClient stranger = client(target, OPTIONS.withTls(tls.withCertificate(certs.strangerCert, certs.strangerKey)));
             SimdexClient member = client(target, OPTIONS.withTls(tls.withCertificate(certs.clientCert, certs.clientKey)))) {
            assertEquals(Status.Code.UNAVAILABLE, codeOf(none::listCollections));
            assertEquals(Status.Code.UNAVAILABLE, codeOf(stranger::listCollections));
            assertEquals(1, member.insert("default", List.of(Doc.of("a", 42L))));
        }
    }

    @Test
    void roles_eachCallNeedsItsRoleOnItsCollection() throws Exception {
        Path auth = dir.resolve("auth");
        Files.writeString(auth, String.join("\n",
                "# role collection hash",
                "read  *    " + TokenTable.hashOf("reader"),
                "write *    " + TokenTable.hashOf("writer"),
                "admin *    " + TokenTable.hashOf("root"),
                "write news " + TokenTable.hashOf("news-writer"), ""));
        String target = start(ServerSecurity.builder().authFile(auth).build());
        try (SimdexClient anonymous = client(target, OPTIONS);
             SimdexClient unknown = client(target, OPTIONS.withToken("guess"));
             SimdexClient reader = client(target, OPTIONS.withToken("reader"));
             SimdexClient writer = client(target, OPTIONS.withToken("writer"));
             SimdexClient root = client(target, OPTIONS.withToken("root"));
             SimdexClient newsWriter = client(target, OPTIONS.withToken("news-writer"))) {
            assertEquals(Status.Code.UNAUTHENTICATED, codeOf(anonymous::listCollections));
            assertEquals(Status.Code.UNAUTHENTICATED, codeOf(unknown::listCollections));

            assertEquals(Status.Code.PERMISSION_DENIED, codeOf(() -> reader.insert("default", List.of(Doc.of("r", 1L)))));
            assertEquals(Status.Code.PERMISSION_DENIED, codeOf(() -> writer.createCollection("news")));
            assertTrue(root.createCollection("news"));

            assertEquals(1, writer.insert("default", List.of(Doc.of("w", 7L))));
            assertEquals(1, reader.query("default", List.of(7L), 0, 10).get(0).matches().size());
            assertEquals(1, newsWriter.insert("news", List.of(Doc.of("n", 9L))));
            assertEquals(1, newsWriter.query("news", List.of(9L), 0, 10).get(0).matches().size());
            assertEquals(Status.Code.PERMISSION_DENIED, codeOf(() -> newsWriter.insert("default", List.of(Doc.of("x", 3L)))));
            assertEquals(Status.Code.PERMISSION_DENIED, codeOf(() -> newsWriter.insert(null, List.of(Doc.of("x", 3L)))));
            assertEquals(2, newsWriter.listCollections().size());
            assertEquals(Status.Code.PERMISSION_DENIED, codeOf(() -> newsWriter.handlingTimes(false)));
            assertEquals(0, reader.query("default", List.of(3L), 0, 10).get(0).matches().size(), "a refused insert wrote nothing");
            assertEquals(Status.Code.PERMISSION_DENIED, codeOf(() -> newsWriter.deleteCollection("news")));
            assertTrue(root.deleteCollection("news"));
        }
        ManagedChannel plain = Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
        try {
            HealthCheckResponse health = HealthGrpc.newBlockingStub(plain).withDeadlineAfter(20, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance());
            assertEquals(HealthCheckResponse.ServingStatus.SERVING, health.getStatus(), "health checks need no token");
        } finally {
            plain.shutdownNow();
        }
    }

    @Test
    void certificateKeyAndClientCa_replacedWhileServing_areTakenByTheNextHandshakes_aKeyNotTheCertificatesIsNot() throws Exception {
        Path live = Files.createDirectories(dir.resolve("tls"));
        Path cert = live.resolve("server.crt");
        Path key = live.resolve("server.key");
        Path clientCa = live.resolve("client-ca.crt");
        replace(cert, certs.serverCert);
        replace(key, certs.serverKey);
        replace(clientCa, certs.ca);
        // Looked at by every handshake: each step below is decided by the next client's.
        String target = start(ServerSecurity.builder().tls(cert, key).clientCa(clientCa).tlsCheck(Duration.ZERO).build());
        ClientTls byCa = ClientTls.trusting(certs.ca).withCertificate(certs.clientCert, certs.clientKey);
        ClientTls byOtherCa = ClientTls.trusting(certs.otherCa).withCertificate(certs.clientCert, certs.clientKey);
        assertServes(target, byCa, true);
        assertServes(target, byOtherCa, false);
        assertEquals(TestCertificates.notAfter(certs.serverCert), CertificatesInUse.expirations().get(CertificatesInUse.PUBLIC));

        // The new certificate without its key: the pair is not whole, the old one stays.
        replace(cert, certs.otherServerCert);
        assertServes(target, byCa, true);
        assertServes(target, byOtherCa, false);
        assertEquals(TestCertificates.notAfter(certs.serverCert), CertificatesInUse.expirations().get(CertificatesInUse.PUBLIC),
                "the expiry of a certificate not taken");

        replace(key, certs.otherServerKey);
        assertServes(target, byOtherCa, true);
        assertServes(target, byCa, false);
        assertEquals(TestCertificates.notAfter(certs.otherServerCert), CertificatesInUse.expirations().get(CertificatesInUse.PUBLIC),
                "the expiry of the renewed certificate");

        // Client certificates of the other CA only, from now on.
        ClientTls stranger = ClientTls.trusting(certs.otherCa).withCertificate(certs.strangerCert, certs.strangerKey);
        assertServes(target, stranger, false);
        replace(clientCa, certs.otherCa);
        assertServes(target, stranger, true);
        assertServes(target, byOtherCa, false);
    }

    /** Whether a new connection with {@code tls} is served (a call succeeds) or refused at the handshake. */
    private static void assertServes(String target, ClientTls tls, boolean served) {
        try (SimdexClient c = client(target, OPTIONS.withTls(tls))) {
            if (served) {
                assertEquals(1, c.listCollections().size());
            } else {
                assertEquals(Status.Code.UNAVAILABLE, codeOf(c::listCollections));
            }
        }
    }

    /** Replaces {@code file} with a copy of {@code from} at once, as {@code mv} does. */
    private static void replace(Path file, Path from) throws Exception {
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.copy(from, next, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.move(next, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void tokensOverMutualTls() {
        Path auth = dir.resolve("auth");
        writeAuth(auth, "read * " + TokenTable.hashOf("reader"));
        String target = start(ServerSecurity.builder().tls(certs.serverCert, certs.serverKey).clientCa(certs.ca).authFile(auth).build());
        ClientTls tls = ClientTls.trusting(certs.ca).withCertificate(certs.clientCert, certs.clientKey);
        try (SimdexClient reader = client(target, OPTIONS.withTls(tls).withToken("reader"));
             SimdexClient anonymous = client(target, OPTIONS.withTls(tls))) {
            assertEquals(1, reader.listCollections().size());
            assertEquals(Status.Code.UNAUTHENTICATED, codeOf(anonymous::listCollections));
        }
    }

    @Test
    void authFile_changed_readAgain() {
        Path auth = dir.resolve("auth");
        writeAuth(auth, "admin * " + TokenTable.hashOf("old"));
        String target = start(ServerSecurity.builder().authFile(auth).authCheck(Duration.ZERO).build());
        try (SimdexClient old = client(target, OPTIONS.withToken("old"));
             SimdexClient fresh = client(target, OPTIONS.withToken("new"))) {
            assertEquals(1, old.listCollections().size());
            assertEquals(Status.Code.UNAUTHENTICATED, codeOf(fresh::listCollections));
            // Another line, so the size differs too: a rewrite within one timestamp tick is still seen.
            writeAuth(auth, "# rotated\nadmin * " + TokenTable.hashOf("new"));
            awaitTrue(() -> succeeds(fresh));
            assertEquals(Status.Code.UNAUTHENTICATED, codeOf(old::listCollections));
            writeAuth(auth, "admin * not-a-hash");
            // Checked every call: this one reads the broken file, the assertion's call runs on what it kept.
            fresh.listCollections();
            assertEquals(1, fresh.listCollections().size(), "a malformed file keeps the grants read before");
        }
    }

    private static boolean succeeds(SimdexClient c) {
        try {
            c.listCollections();
            return true;
        } catch (StatusRuntimeException e) {
            assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
            return false;
        }
    }

    private static void awaitTrue(Supplier<Boolean> condition) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.get()) {
            assertTrue(System.nanoTime() < until, "condition not met within 20 s");
            Thread.onSpinWait();
        }
    }

    private static void writeAuth(Path file, String content) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, content + "\n");
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
