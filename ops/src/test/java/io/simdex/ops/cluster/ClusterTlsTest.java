package io.simdex.ops.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.simdex.client.ClientOptions;
import io.simdex.client.ClientTls;
import io.simdex.client.Doc;
import io.simdex.client.SimdexClient;
import io.simdex.client.tls.TestCertificates;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.router.cluster.ClusterConfig;
import io.simdex.server.tls.CertificatesInUse;
import io.simdex.server.tls.ReloadingCredentials;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-node cluster and its router in this JVM with every link under mutual TLS: the router's
 * public port, router to node, and Atomix between them. Only a certificate of the cluster CA
 * reaches the node port.
 */
class ClusterTlsTest {
    @TempDir
    Path dir;

    @Test
    void mutualTls_clusterWorks_nodePortOnlyForClusterCertificates() throws Exception {
        TestCertificates certs = TestCertificates.make(Files.createDirectories(dir.resolve("certs")));
        int nodePort = freePort();
        int nodeAtomix = freePort();
        String tls = "tls.cert=" + certs.serverCert + "\ntls.key=" + certs.serverKey + "\ntls.cluster.ca=" + certs.ca + "\n";
        String seeds = "seeds=node-1@127.0.0.1:" + nodeAtomix + "\n";
        Path nodeFile = Files.writeString(dir.resolve("node.properties"), "id=node-1\nhost=127.0.0.1\nport=" + nodePort
                + "\natomix.port=" + nodeAtomix + "\ndata=" + dir.resolve("node") + "\n" + seeds + "raft=node-1\nreplication=1\n"
                + "expected=10000\n" + tls);
        Path routerFile = Files.writeString(dir.resolve("router.properties"), "id=router-1\nhost=127.0.0.1\nport=" + freePort()
                + "\natomix.port=" + freePort() + "\ndata=" + dir.resolve("router") + "\n" + seeds + tls);
        try (ClusterNode node = ClusterNode.start(ClusterConfig.load(nodeFile));
             ClusterRouter router = ClusterRouter.start(ClusterConfig.load(routerFile));
             SimdexClient client = SimdexClient.connect("127.0.0.1:" + router.port(),
                     ClientOptions.DEFAULTS.withDeadline(Duration.ofSeconds(20)).withTls(ClientTls.trusting(certs.ca)))) {
            // Insert is idempotent; the first one also makes the collection's files on the node, slow on a busy machine.
            assertTrue(await(() -> client.insert("default", List.of(Doc.of("a", 0x1234L))) == 1), "insert through the router");
            assertTrue(await(() -> client.query("default", List.of(0x1234L), 0, 10).get(0).matches().size() == 1),
                    "the insert is found through the router");

            Instant expires = TestCertificates.notAfter(certs.serverCert);
            for (String use : List.of(CertificatesInUse.PUBLIC, CertificatesInUse.PEER, CertificatesInUse.MEMBERSHIP)) {
                assertEquals(expires, CertificatesInUse.expirations().get(use), "the expiry of the " + use + " certificate");
            }

            String nodeTarget = "127.0.0.1:" + nodePort;
            assertEquals(Status.Code.UNAVAILABLE, nodeStatus(nodeTarget, InsecureChannelCredentials.create()));
            assertEquals(Status.Code.UNAVAILABLE, nodeStatus(nodeTarget, TlsChannelCredentials.newBuilder()
                    .trustManager(certs.ca.toFile()).build()));
            assertEquals(Status.Code.UNAVAILABLE, nodeStatus(nodeTarget, TlsChannelCredentials.newBuilder()
                    .trustManager(certs.ca.toFile()).keyManager(certs.strangerCert.toFile(), certs.strangerKey.toFile()).build()));
            assertEquals(Status.Code.OK, nodeStatus(nodeTarget, TlsChannelCredentials.newBuilder()
                    .trustManager(certs.ca.toFile()).keyManager(certs.clientCert.toFile(), certs.clientKey.toFile()).build()));
        }
    }

    /**
     * A member's certificate, key and CA renewed under another CA while it runs: its Atomix port
     * presents the new certificate, and a router that holds only the new CA's certificate joins
     * through Atomix and serves, with no restart of the node.
     */
    @Test
    void renewedFiles_reachTheAtomixLinks_withoutARestart() throws Exception {
        TestCertificates certs = TestCertificates.make(Files.createDirectories(dir.resolve("certs")));
        Path tls = Files.createDirectories(dir.resolve("node-tls"));
        Path cert = Files.copy(certs.serverCert, tls.resolve("node.crt"));
        Path key = Files.copy(certs.serverKey, tls.resolve("node.key"));
        Path ca = Files.copy(certs.ca, tls.resolve("cluster-ca.crt"));
        int nodeAtomix = freePort();
        String seeds = "seeds=node-1@127.0.0.1:" + nodeAtomix + "\n";
        Path nodeFile = Files.writeString(dir.resolve("node.properties"), "id=node-1\nhost=127.0.0.1\nport=" + freePort()
                + "\natomix.port=" + nodeAtomix + "\ndata=" + dir.resolve("node") + "\n" + seeds + "raft=node-1\nreplication=1\n"
                + "expected=10000\ntls.cert=" + cert + "\ntls.key=" + key + "\ntls.cluster.ca=" + ca + "\n");
        Path routerFile = Files.writeString(dir.resolve("router.properties"), "id=router-1\nhost=127.0.0.1\nport=" + freePort()
                + "\natomix.port=" + freePort() + "\ndata=" + dir.resolve("router") + "\n" + seeds + "tls.cert=" + certs.otherServerCert
                + "\ntls.key=" + certs.otherServerKey + "\ntls.cluster.ca=" + certs.otherCa + "\n");
        try (ClusterNode node = ClusterNode.start(ClusterConfig.load(nodeFile))) {
            X509Certificate renewed = certificate(certs.otherServerCert);
            assertFalse(renewed.equals(atomixCertificate(nodeAtomix, certs)), "the node starts with the first CA's certificate");

            Files.copy(certs.otherServerCert, cert, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(certs.otherServerKey, key, StandardCopyOption.REPLACE_EXISTING);
            Files.copy(certs.otherCa, ca, StandardCopyOption.REPLACE_EXISTING);
            assertTrue(await(() -> renewed.equals(atomixCertificate(nodeAtomix, certs))), "the node's Atomix port presents the renewed certificate");
            assertEquals(TestCertificates.notAfter(certs.otherServerCert), CertificatesInUse.expirations().get(CertificatesInUse.MEMBERSHIP));

            try (ClusterRouter router = ClusterRouter.start(ClusterConfig.load(routerFile));
                 SimdexClient client = SimdexClient.connect("127.0.0.1:" + router.port(),
                         ClientOptions.DEFAULTS.withDeadline(Duration.ofSeconds(20)).withTls(ClientTls.trusting(certs.otherCa)))) {
                assertTrue(await(() -> client.insert("default", List.of(Doc.of("a", 0x1234L))) == 1), "insert through the router");
                assertTrue(await(() -> client.query("default", List.of(0x1234L), 0, 10).get(0).matches().size() == 1),
                        "the insert is found through the router");
            }
        }
    }

    /** The certificate the Atomix port at {@code port} presents to a peer of the other CA; null when the handshake fails. */
    private static X509Certificate atomixCertificate(int port, TestCertificates certs) {
        ReloadingCredentials peer = ReloadingCredentials.load(certs.otherServerCert, certs.otherServerKey, certs.otherCa, Duration.ofHours(1));
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[]{peer.keyManager()}, new TrustManager[]{peer.trustManager()}, null);
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
                socket.setSoTimeout(5_000);
                socket.startHandshake();
                return (X509Certificate) socket.getSession().getPeerCertificates()[0];
            }
        } catch (IOException | GeneralSecurityException e) {
            return null;
        }
    }

    private static X509Certificate certificate(Path pem) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /**
     * Waits for {@code condition}, taking UNAVAILABLE as "not yet": a node serves reads once it
     * has caught up after its start, and a write that outlasts the router's timeout is retried.
     */
    private static boolean await(BooleanSupplier condition) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < until) {
            try {
                if (condition.getAsBoolean()) {
                    return true;
                }
            } catch (StatusRuntimeException e) {
                assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.toString());
            }
            Thread.onSpinWait();
        }
        return false;
    }

    private static Status.Code nodeStatus(String target, ChannelCredentials credentials) {
        ManagedChannel channel = Grpc.newChannelBuilder(target, credentials).build();
        try {
            ShardControlGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).status(NodeStatusRequest.getDefaultInstance());
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        } finally {
            channel.shutdownNow();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
