package io.simdex.router.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ClusterSecurityTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static String error(Properties p) {
        return assertThrows(IllegalArgumentException.class, () -> ClusterSecurity.of(p, "node.properties")).getMessage();
    }

    @Test
    void of_noKeys_plaintextLoopbackOnly() {
        ClusterSecurity s = ClusterSecurity.of(props(), "node.properties");
        assertFalse(s.mutualTls());
        s.checkNode("127.0.0.1");
        assertThrows(IllegalArgumentException.class, () -> s.checkNode("0.0.0.0"));
        ClusterSecurity.of(props("insecure", "true"), "node.properties").checkNode("0.0.0.0");
    }

    @Test
    void of_halfTheTlsKeys_refusedNamingTheFile() {
        assertEquals("node.properties: give both tls.cert and tls.key, or neither", error(props("tls.cert", "a.crt")));
        assertEquals("node.properties: tls.cluster.ca needs this member's tls.cert and tls.key", error(props("tls.cluster.ca", "ca.crt")));
    }

    @Test
    void checkNode_certificateWithoutClusterCa_refused() {
        ClusterSecurity s = ClusterSecurity.of(props("tls.cert", "a.crt", "tls.key", "a.key"), "node.properties");
        assertEquals(Path.of("a.crt"), s.tlsCert());
        assertEquals("a node with tls.cert needs tls.cluster.ca: node ports take only cluster members",
                assertThrows(IllegalArgumentException.class, () -> s.checkNode("127.0.0.1")).getMessage());
    }
}
