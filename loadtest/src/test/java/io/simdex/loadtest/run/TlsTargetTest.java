package io.simdex.loadtest.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.client.tls.TestCertificates;
import io.simdex.proto.v1.ListCollectionsRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.security.ServerSecurity;
import io.simdex.router.security.TokenTable;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The load generator's target options against a server that requires TLS, a client certificate and a token, over loopback. */
class TlsTargetTest {
    @TempDir
    Path dir;
    private TestCertificates certs;
    private EmbeddedSimdex server;

    @BeforeEach
    void start() throws Exception {
        certs = TestCertificates.make(Files.createDirectories(dir.resolve("certs")));
        Path auth = Files.writeString(dir.resolve("auth.txt"), "read * " + TokenTable.hashOf("loader") + "\n");
        server = EmbeddedSimdex.start(dir.resolve("data"), 1, "127.0.0.1", 0, 10_000, HandlerThreads.perCore(), true, Clock.systemUTC(),
                Durability.PROCESS, ServerSecurity.builder().tls(certs.serverCert, certs.serverKey).clientCa(certs.ca).authFile(auth).build());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** ListCollections through the first channel of the target these flags open. */
    private Status.Code call(String... flags) throws Exception {
        TargetOptions options = new TargetOptions();
        List<String> args = new ArrayList<>(List.of("--target", "127.0.0.1:" + server.port()));
        args.addAll(List.of(flags));
        new CommandLine(options).parseArgs(args.toArray(String[]::new));
        try (Target t = options.open()) {
            ManagedChannel channel = t.channels(1)[0];
            SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).listCollections(ListCollectionsRequest.getDefaultInstance());
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    @Test
    void caClientCertificateAndToken_callsGoThrough() throws Exception {
        assertEquals(Status.Code.OK, call("--tls-ca", certs.ca.toString(), "--tls-cert", certs.clientCert.toString(),
                "--tls-key", certs.clientKey.toString(), "--token", "loader"));
    }

    @Test
    void withoutToken_unauthenticated() throws Exception {
        assertEquals(Status.Code.UNAUTHENTICATED, call("--tls-ca", certs.ca.toString(), "--tls-cert", certs.clientCert.toString(),
                "--tls-key", certs.clientKey.toString(), "--token", ""));
    }

    @Test
    void plaintextOrWithoutClientCertificate_refusedByTheServer() throws Exception {
        assertEquals(Status.Code.UNAVAILABLE, call("--token", "loader"));
        assertEquals(Status.Code.UNAVAILABLE, call("--tls-ca", certs.ca.toString(), "--token", "loader"));
    }

    @Test
    void tlsToAnInProcessTarget_refusedNamingIt() {
        TargetOptions options = new TargetOptions();
        new CommandLine(options).parseArgs("--target", "echo", "--tls-ca", certs.ca.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, options::open);
        assertEquals("TLS options need a HOST:PORT target; echo is started here and serves plaintext", e.getMessage());
    }
}
