package io.simdex.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code simdex config check FILE}: exit 0 with a summary, or exit 2 with the line of an unknown key. */
class ConfigCheckTest {
    private static final String NODE = "id=node-1\nport=7511\natomix.port=7611\ndata=data\nseeds=node-1@127.0.0.1:7611\nreplication=1\n";

    @TempDir
    Path dir;

    @Test
    void check_goodFile_exitsZeroWithSummary() throws Exception {
        Path file = Files.writeString(dir.resolve("node.properties"), NODE);
        CliRun r = CliRun.of("config", "check", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith(file + ": ok: id node-1, 127.0.0.1:7511, atomix port 7611"), r.out());
    }

    @Test
    void check_typoedKey_exitsTwoNamingTheLine() throws Exception {
        Path file = Files.writeString(dir.resolve("node.properties"), NODE + "# W\nwrite_quorum=1\n");
        CliRun r = CliRun.of("config", "check", file.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains(file + " line 8: unknown key 'write_quorum' (did you mean 'write.quorum'?)"), r.err());
    }

    @Test
    void check_showsEveryKeysEffectiveValueAndOrigin() throws Exception {
        Path file = Files.writeString(dir.resolve("node.properties"), NODE);
        CliRun r = CliRun.of("config", "check", "--set", "write.quorum=1", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.matches(" +write\\.quorum +1 +flag --set write\\.quorum")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches(" +atomix\\.port +7611 +" + java.util.regex.Pattern.quote(file + " line 3"))), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches(" +durability +process +default")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.matches(" +metrics\\.port +\\(unset\\) +default")), r.out());
    }

    @Test
    void check_missingFile_exitsTwoNamingIt() {
        Path file = dir.resolve("absent.properties");
        CliRun r = CliRun.of("config", "check", file.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("config file " + file + " does not exist"), r.err());
    }

    @Test
    void check_embeddedFile_readWithTheEmbeddedKeys() throws Exception {
        Path file = Files.writeString(dir.resolve("embedded.properties"), "port=7400\nshards=2\n");
        CliRun ok = CliRun.of("config", "check", "--for", "embedded", file.toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().startsWith(file + ": ok: embedded, 127.0.0.1:7400, data data, 2 shards, durability process, tls off"), ok.out());
        Path cluster = Files.writeString(dir.resolve("node.properties"), NODE);
        CliRun bad = CliRun.of("config", "check", "--for", "embedded", cluster.toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains(cluster + " line 1: unknown key 'id'"), bad.err());
    }

    @Test
    void check_shardFile_readWithTheShardKeys() throws Exception {
        Path file = Files.writeString(dir.resolve("shard.properties"), "data=s1\nport=7511\nshards=3\n");
        CliRun ok = CliRun.of("config", "check", "--for", "shard", "--set", "durability=fsync", file.toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().startsWith(file + ": ok: shard, 127.0.0.1:7511, data s1, sized for 3 shards, durability fsync, tls off"), ok.out());
        assertTrue(ok.out().lines().anyMatch(l -> l.matches(" +durability +fsync +flag --set durability")), ok.out());
        Path noPort = Files.writeString(dir.resolve("noport.properties"), "data=s1\n# routers\nseeds=n@h:1\n");
        CliRun bad = CliRun.of("config", "check", "--for", "shard", noPort.toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains(noPort + " line 3: unknown key 'seeds'"), bad.err());
    }

    @Test
    void check_routerFileWithShardAddresses_readWithTheFixedRouterKeys() throws Exception {
        Path file = Files.writeString(dir.resolve("router.properties"), "shard.addresses=127.0.0.1:7511, 127.0.0.1:7512\nport=7400\n");
        CliRun ok = CliRun.of("config", "check", "--for", "router", file.toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(ok.out().startsWith(file + ": ok: router, 127.0.0.1:7400, data data/router, 2 shards [127.0.0.1:7511, 127.0.0.1:7512],"
                + " tls off, to shards plaintext"), ok.out());
        Path mixed = Files.writeString(dir.resolve("mixed.properties"), "shard.addresses=127.0.0.1:7511\nseeds=n@h:1\n");
        CliRun bad = CliRun.of("config", "check", "--for", "router", mixed.toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains(mixed + " line 2: unknown key 'seeds'"), bad.err());
        Path noPort = Files.writeString(dir.resolve("bad.properties"), "shard.addresses=127.0.0.1:7511,,h\n");
        CliRun empty = CliRun.of("config", "check", "--for", "router", noPort.toString());
        assertEquals(2, empty.code());
        assertTrue(empty.err().contains(noPort + " line 1: shard.addresses must be host:port addresses separated by commas"), empty.err());
        Path shortLease = Files.writeString(dir.resolve("lease.properties"), "shard.addresses=127.0.0.1:7511\ndedup.lease.millis=500\n");
        CliRun lease = CliRun.of("config", "check", "--for", "router", shortLease.toString());
        assertEquals(2, lease.code());
        assertTrue(lease.err().contains(shortLease + " line 2: dedup.lease.millis must be 1000..3600000, was \"500\""), lease.err());
    }

    @Test
    void check_distributionExamples_exitZero() {
        String[][] examples = {{"node", "node"}, {"router", "router"}, {"embedded", "embedded"}, {"shard", "shard"}, {"router", "router-shards"}};
        for (String[] example : examples) {
            Path file = Path.of("dist/conf", example[1] + ".properties"); // the module directory, as surefire runs
            CliRun r = CliRun.of("config", "check", "--for", example[0], file.toString());
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().startsWith(file + ": ok:"), r.out());
        }
    }
}
