package io.simdex.router.cluster;

import io.simdex.router.config.ConfigSchema;
import io.simdex.router.config.Settings;
import io.simdex.router.security.ServerSecurity;
import io.simdex.server.tls.PeerCredentials;
import io.simdex.server.tls.TlsFiles;

import java.nio.file.Path;
import java.util.Properties;

/**
 * The security keys of a node's or router's config file:
 * <pre>
 * tls.cert=/etc/simdex/node-1.crt   this member's certificate chain (PEM), for its ports and as a client of peers
 * tls.key=/etc/simdex/node-1.key    its private key (PEM, PKCS#8)
 * tls.cluster.ca=/etc/simdex/ca.crt the CA that signs every member: with it routers and nodes talk mutual TLS, node ports
 *                                   and Atomix accept only certificates it signed (a node with tls.cert must have it)
 * tls.client.ca=/etc/simdex/cl.crt  routers: require client certificates this CA signed on the public port
 * auth.file=/etc/simdex/auth        routers: bearer tokens and their roles (see TokenTable), read again when changed
 * insecure=false                    true: listen beyond loopback without TLS on purpose
 * </pre>
 * Every key is optional; without TLS every port must be a loopback address unless insecure.
 */
public record ClusterSecurity(Path tlsCert, Path tlsKey, Path clusterCa, Path clientCa, Path authFile, boolean insecure) {
    /** @throws IllegalArgumentException naming {@code source} for a setting that cannot work */
    static ClusterSecurity of(Properties p, String source) {
        return of(Settings.of(ConfigSchema.CLUSTER, p, source));
    }

    /** @throws IllegalArgumentException naming the origin of a setting that cannot work */
    static ClusterSecurity of(Settings p) {
        ClusterSecurity s = new ClusterSecurity(p.path("tls.cert"), p.path("tls.key"), p.path("tls.cluster.ca"),
                p.path("tls.client.ca"), p.path("auth.file"), p.bool("insecure"));
        if ((s.tlsCert == null) != (s.tlsKey == null)) {
            String given = s.tlsCert != null ? "tls.cert" : "tls.key";
            throw new IllegalArgumentException(p.get(given).origin() + ": give both tls.cert and tls.key, or neither");
        }
        if (s.clusterCa != null && s.tlsCert == null) {
            throw new IllegalArgumentException(p.get("tls.cluster.ca").origin() + ": tls.cluster.ca needs this member's tls.cert and tls.key");
        }
        return s;
    }

    /** Whether members talk mutual TLS (routers to nodes, nodes to nodes, Atomix). */
    public boolean mutualTls() {
        return clusterCa != null;
    }

    /** How this member reaches and serves its peers' node ports. */
    public PeerCredentials peers() {
        return mutualTls() ? PeerCredentials.mutualTls(new TlsFiles(tlsCert, tlsKey, clusterCa)) : PeerCredentials.PLAINTEXT;
    }

    /** A router's public port. */
    public ServerSecurity publicPort() {
        return ServerSecurity.builder().tls(tlsCert, tlsKey).clientCa(clientCa).authFile(authFile).insecure(insecure).build();
    }

    /**
     * A node's checks: its port is mutual TLS or plaintext, never server-only TLS, and plaintext
     * only on loopback unless insecure.
     *
     * @throws IllegalArgumentException naming what is missing
     */
    public void checkNode(String host) {
        if (tlsCert != null && !mutualTls()) {
            throw new IllegalArgumentException("a node with tls.cert needs tls.cluster.ca: node ports take only cluster members");
        }
        checkPeerListen(host);
    }

    /**
     * Refuses a plaintext node port or Atomix port beyond loopback unless insecure.
     *
     * @throws IllegalArgumentException naming the host and the keys that would allow it
     */
    public void checkPeerListen(String host) {
        if (!mutualTls()) {
            ServerSecurity.builder().insecure(insecure).build().checkListen(host);
        }
    }
}
