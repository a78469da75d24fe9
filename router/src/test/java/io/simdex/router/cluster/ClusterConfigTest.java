package io.simdex.router.cluster;

import io.simdex.server.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterConfigTest {
    private static Properties node() {
        Properties p = new Properties();
        p.setProperty("id", "node-1");
        p.setProperty("port", "7500");
        p.setProperty("atomix.port", "7600");
        p.setProperty("data", "data");
        p.setProperty("seeds", "node-1@127.0.0.1:7600");
        return p;
    }

    @Test
    void of_noReplicationOrQuorum_threeReplicasWriteQuorumTwo_fewerWhenFewerFounders() {
        Properties three = node();
        three.setProperty("raft", "node-1,node-2,node-3");
        ClusterConfig c = ClusterConfig.of(three, "node.properties");
        assertEquals(3, c.replication());
        assertEquals(2, c.writeQuorum(), "one node down stops no write");
        Properties two = node();
        two.setProperty("raft", "node-1,node-2");
        assertEquals(2, ClusterConfig.of(two, "node.properties").replication());
        Properties one = node();
        one.setProperty("raft", "node-1");
        assertEquals(1, ClusterConfig.of(one, "node.properties").writeQuorum());
    }

    @Test
    void of_clockSkewMillis_defaultFiveSeconds_badValueNamed() {
        assertEquals(5_000, ClusterConfig.of(node(), "node.properties").clockSkewMillis());
        Properties p = node();
        p.setProperty("clock.skew.millis", "0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterConfig.of(p, "router.properties"));
        assertEquals("router.properties: clock.skew.millis must be 1..3600000, was \"0\"", e.getMessage());
    }

    @Test
    void of_dedupLeaseMillis_defaultThirtySeconds_setValueRead_underOneSecondNamed() {
        assertEquals(30_000, ClusterConfig.of(node(), "router.properties").dedupLeaseMillis());
        Properties p = node();
        p.setProperty("dedup.lease.millis", "10000");
        assertEquals(10_000, ClusterConfig.of(p, "router.properties").dedupLeaseMillis());
        p.setProperty("dedup.lease.millis", "999");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterConfig.of(p, "router.properties"));
        assertEquals("router.properties: dedup.lease.millis must be 1000..3600000, was \"999\"", e.getMessage());
    }

    @Test
    void durability_unset_isProcess() {
        assertEquals(Durability.PROCESS, ClusterConfig.of(node(), "node.properties").durability());
    }

    @Test
    void durability_fsync_parsed() {
        Properties p = node();
        p.setProperty("durability", "fsync");
        assertEquals(Durability.FSYNC, ClusterConfig.of(p, "node.properties").durability());
    }

    @Test
    void durability_badValue_namesFileAndChoices() {
        Properties p = node();
        p.setProperty("durability", "sync");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterConfig.of(p, "node.properties"));
        assertEquals("node.properties: durability must be one of process, fsync, was \"sync\"", e.getMessage());
    }

    @Test
    void id_withASlash_isRefusedNamingFileAndId() {
        Properties p = node();
        p.setProperty("id", "cleared/node-1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterConfig.of(p, "node.properties"));
        assertEquals("node.properties: id 'cleared/node-1' must be 1-100 letters, digits, '.', '_' or '-'", e.getMessage());
        p.setProperty("id", "node_1.rack-2");
        assertEquals("node_1.rack-2", ClusterConfig.of(p, "node.properties").id());
    }

    @Test
    void seeds_badPort_namesTheOriginAndTheSeed() {
        Properties p = node();
        p.setProperty("seeds", "node-1@127.0.0.1:76x0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterConfig.of(p, "node.properties"));
        assertEquals("node.properties: seed 'node-1@127.0.0.1:76x0' is not id@host:port", e.getMessage());
    }

    @Test
    void metricsPort_unset_isOff() {
        assertEquals(ClusterConfig.NO_METRICS, ClusterConfig.of(node(), "node.properties").metricsPort());
    }

    @Test
    void metricsPort_set_parsed() {
        Properties p = node();
        p.setProperty("metrics.port", "9411");
        assertEquals(9411, ClusterConfig.of(p, "node.properties").metricsPort());
    }

    @Test
    void metricsPort_badValue_namesFileAndValue() {
        Properties p = node();
        p.setProperty("metrics.port", "70000");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterConfig.of(p, "node.properties"));
        assertEquals("node.properties: metrics.port must be 0..65535, was \"70000\"", e.getMessage());
    }

    @Test
    void unknownKey_inFile_namesLineAndTheKeyMeant(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("node.properties");
        Files.writeString(file, "# node\nid=node-1\nport=7500\natomix.port=7600\ndata=data\n"
                + "seeds=node-1@127.0.0.1:7600\nreplication=2\nwrite_quorum=1\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterConfig.load(file));
        assertTrue(e.getMessage().startsWith(file + " line 8: unknown key 'write_quorum' (did you mean 'write.quorum'?)"), e.getMessage());
    }

    @Test
    void unknownKey_withoutFile_isRefusedToo() {
        Properties p = node();
        p.setProperty("metrics", "9411");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterConfig.of(p, "node.properties"));
        assertTrue(e.getMessage().startsWith("node.properties: unknown key 'metrics'; known keys: atomix.port, auth.file,"), e.getMessage());
    }

    @Test
    void everyKnownKey_inFile_isAccepted(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("router.properties");
        Files.writeString(file, "id = router-1\nhost: 127.0.0.1\nport 7411\natomix.port=7600\ndata=data\n"
                + "seeds=node-1@127.0.0.1:7600\nraft=node-1\nreplication=1\nwrite.quorum=1\nexpected=10\nhedge.millis=0\n"
                + "handler.threads=0\ndurability=process\nmetrics.port=0\ninsecure=false\n! a comment\n");
        assertEquals("router-1", ClusterConfig.load(file).id());
    }
}
