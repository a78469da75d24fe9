package io.simdex.client;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.client.tls.TestCertificates;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.security.ServerSecurity;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** A client's TLS files renewed while it runs, against the embedded server over loopback sockets. */
class ClientTlsReloadingTest {
    private static final ClientOptions OPTIONS = ClientOptions.DEFAULTS.withDeadline(Duration.ofSeconds(20));
    private static final Duration CHECK = Duration.ofMillis(20);
    /**
     * Runs the file checks every 20 ms instead of the period asked for: gRPC takes none shorter
     * than a minute ({@link ClientTls#RELOAD_CHECK}).
     */
    private final ScheduledThreadPoolExecutor checks = new ScheduledThreadPoolExecutor(1) {
        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long initialDelay, long delay, TimeUnit unit) {
            return super.scheduleWithFixedDelay(task, CHECK.toMillis(), CHECK.toMillis(), TimeUnit.MILLISECONDS);
        }
    };

    /** Checks scheduled on {@link #manual}, which run only when a test runs them. */
    private final List<Runnable> manualChecks = new CopyOnWriteArrayList<>();
    private final ScheduledThreadPoolExecutor manual = new ScheduledThreadPoolExecutor(1) {
        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long initialDelay, long delay, TimeUnit unit) {
            manualChecks.add(task);
            return super.scheduleWithFixedDelay(task, 1, 1, TimeUnit.DAYS);
        }
    };

    @TempDir
    Path dir;
    private EmbeddedSimdex server;
    /** The server's address, once {@link #serve} started it. */
    private String target;

    @AfterEach
    void stop() {
        checks.shutdownNow();
        manual.shutdownNow();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void caCertificateAndKey_renewedOnDisk_areTakenByTheNextHandshake_untilClosed() throws Exception {
        TestCertificates certs = serve();
        Path srv = dir.resolve("server");
        Path cli = dir.resolve("client");
        ClientTls tls = clientTls(cli);

        try (ClientTls.Reloading following = tls.reloading(checks); ClientTls.Reloading stopped = tls.reloading(checks)) {
            assertServes(target, following.credentials(), true);
            assertServes(target, stopped.credentials(), true);
            stopped.close();

            // A certificate without its key is not taken: the pair in use stays whole.
            replace(cli.resolve("cert.pem"), certs.strangerCert);
            long ran = checks.getCompletedTaskCount();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (checks.getCompletedTaskCount() < ran + 4) { // each of the two checks twice
                assertTrue(System.nanoTime() < until, "the file checks did not run");
                Thread.sleep(CHECK.toMillis());
            }
            assertServes(target, following.credentials(), true);

            // Everything renewed under another CA.
            place(srv, certs.otherServerCert, certs.otherServerKey, certs.otherCa);
            place(cli, certs.strangerCert, certs.strangerKey, certs.otherCa);

            until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!served(target, following.credentials())) {
                if (System.nanoTime() > until) {
                    fail("the renewed files were not taken within 30 s");
                }
                Thread.sleep(CHECK.toMillis());
            }
            assertServes(target, stopped.credentials(), false);
        }
    }

    /**
     * gRPC's own watcher took whatever the files held at its first check: a certificate renewed
     * before it, without its key, was served with the old key and every handshake failed. The
     * checks here run only when the test runs them.
     */
    @Test
    void certificateRenewedWithoutItsKey_beforeTheFirstCheck_orWithAKeyNotItsOwn_isNotTaken() throws Exception {
        TestCertificates certs = serve();
        Path cli = dir.resolve("client");
        try (ClientTls.Reloading following = clientTls(cli).reloading(manual)) {
            renewThenCheck(cli.resolve("cert.pem"), certs.strangerCert);
            assertServes(target, following.credentials(), true);

            renewThenCheck(cli.resolve("key.pem"), certs.clientKey); // written anew, still not the stranger's key
            assertServes(target, following.credentials(), true);

            renewThenCheck(cli.resolve("key.pem"), certs.strangerKey); // the stranger's pair, which the server's CA did not sign
            assertServes(target, following.credentials(), false);
        }
    }

    /** A renewal that keeps the key writes only the certificate: it is taken, its key being the one in use. */
    @Test
    void certificateRenewedForTheSameKey_isTakenWithoutTheKeyFileWrittenAgain() throws Exception {
        TestCertificates certs = serve();
        Path cli = dir.resolve("client");
        try (ClientTls.Reloading following = clientTls(cli).reloading(manual)) {
            assertServes(target, following.credentials(), true);
            renewThenCheck(cli.resolve("cert.pem"), certs.clientCertByOtherCa); // the same key, a CA the server does not trust
            assertServes(target, following.credentials(), false);
        }
    }

    @Test
    void reloading_aFileThatIsNotPem_refusedAtOnce_namingTheFiles() throws Exception {
        Path notPem = Files.writeString(dir.resolve("ca.crt"), "not a certificate");
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> ClientTls.trusting(notPem).reloading(checks));
        assertTrue(e.getMessage().contains(notPem.toString()), e.getMessage());
    }

    /** Replaces {@code file} with a copy of {@code from}, then runs the checks scheduled on {@link #manual}. */
    private void renewThenCheck(Path file, Path from) throws Exception {
        replace(file, from);
        manualChecks.forEach(Runnable::run);
    }

    /** The client's TLS over the files in {@code cli}: the CA it trusts and its certificate and key. */
    private static ClientTls clientTls(Path cli) {
        return ClientTls.trusting(cli.resolve("ca.pem")).withCertificate(cli.resolve("cert.pem"), cli.resolve("key.pem"));
    }

    /**
     * Starts the embedded server with TLS that asks clients for a certificate: its certificate and
     * CA in dir/server, the client's certificate and the CA it trusts in dir/client, all made
     * for the test; its address in {@link #target}.
     */
    private TestCertificates serve() throws Exception {
        TestCertificates certs = TestCertificates.make(Files.createDirectories(dir.resolve("made")));
        Path srv = Files.createDirectories(dir.resolve("server"));
        Path cli = Files.createDirectories(dir.resolve("client"));
        place(srv, certs.serverCert, certs.serverKey, certs.ca);
        place(cli, certs.clientCert, certs.clientKey, certs.ca);
        server = EmbeddedSimdex.start(dir.resolve("data"), 1, "127.0.0.1", 0, 10_000, HandlerThreads.perCore(), true, Clock.systemUTC(),
                Durability.PROCESS, ServerSecurity.builder().tls(srv.resolve("cert.pem"), srv.resolve("key.pem"))
                        .clientCa(srv.resolve("ca.pem")).tlsCheck(Duration.ZERO).build());
        target = "127.0.0.1:" + server.port();
        return certs;
    }

    private static void assertServes(String target, ChannelCredentials credentials, boolean expected) {
        assertEquals(expected, served(target, credentials), expected ? "a new connection was refused" : "a new connection was served");
    }

    /** Whether a call on a new connection made with {@code credentials} is served, or refused at the handshake. */
    private static boolean served(String target, ChannelCredentials credentials) {
        ManagedChannel ch = Grpc.newChannelBuilder(target, credentials).build();
        try {
            SimdexClient.over(ch, OPTIONS).listCollections();
            return true;
        } catch (StatusRuntimeException e) {
            assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
            return false;
        } finally {
            ch.shutdownNow();
        }
    }

    /** {@code dir}'s cert.pem, key.pem and ca.pem replaced by copies of these, in that order. */
    private static void place(Path dir, Path cert, Path key, Path ca) throws Exception {
        replace(dir.resolve("cert.pem"), cert);
        replace(dir.resolve("key.pem"), key);
        replace(dir.resolve("ca.pem"), ca);
    }

    /** Replaces {@code file} with a copy of {@code from} at once, as {@code mv} does. */
    private static void replace(Path file, Path from) throws Exception {
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.copy(from, next, StandardCopyOption.REPLACE_EXISTING);
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
