package io.simdex.ops.cluster;

import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.services.HealthStatusManager;
import io.simdex.client.tls.TestCertificates;
import io.simdex.server.tls.CertificatesInUse;
import io.simdex.server.tls.PeerCredentials;
import io.simdex.server.tls.TlsFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Members' mutual TLS, whose certificates are read again when they change: a member still checks
 * that a peer's certificate names the host it called (the certificate names localhost and
 * 127.0.0.1, not 127.0.0.2, which is the same loopback server).
 */
class PeerCredentialsTest {
    @TempDir
    Path dir;

    @Test
    void aPeerWhoseCertificateDoesNotNameTheHostCalled_isRefused() throws Exception {
        TestCertificates certs = TestCertificates.make(Files.createDirectories(dir.resolve("certs")));
        PeerCredentials peers = PeerCredentials.mutualTls(new TlsFiles(certs.serverCert, certs.serverKey, certs.ca));
        assertEquals(TestCertificates.notAfter(certs.serverCert), CertificatesInUse.expirations().get(CertificatesInUse.PEER));
        Server server = Grpc.newServerBuilderForPort(0, peers.server()).addService(new HealthStatusManager().getHealthService()).build().start();
        try {
            int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
            assertEquals(Status.Code.OK, health("127.0.0.1:" + port, peers));
            assertEquals(Status.Code.UNAVAILABLE, health("127.0.0.2:" + port, peers));
        } finally {
            server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static Status.Code health(String target, PeerCredentials peers) {
        ManagedChannel channel = Grpc.newChannelBuilder(target, peers.channel()).build();
        try {
            HealthGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).check(HealthCheckRequest.getDefaultInstance());
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        } finally {
            channel.shutdownNow();
        }
    }
}
