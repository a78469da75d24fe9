package io.simdex.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code simdex embedded --config FILE} and {@code simdex shard --config FILE} in real processes, with SIMDEX_* variables over the file and flags over both. */
class ConfigEnvIT {
    @TempDir
    Path dir;

    @Test
    void embedded_environmentOverFileAndFlagOverEnvironment_servesWhereTheWinnerSays() throws Exception {
        int filePort = SimdexProcess.freePort();
        int envPort = SimdexProcess.freePort();
        Path conf = Files.writeString(dir.resolve("embedded.properties"),
                "port=" + filePort + "\nshards=2\ndata=" + dir.resolve("file-data") + "\n");
        Map<String, String> env = Map.of("SIMDEX_PORT", Integer.toString(envPort), "SIMDEX_DATA", dir.resolve("env-data").toString());
        try (SimdexProcess server = SimdexProcess.start(dir.resolve("env.log"), env, "embedded", "--config", conf.toString(),
                "--data", dir.resolve("flag-data").toString())) {
            server.awaitServing(envPort, "simdex.v1.Simdex");
            assertTrue(server.output().contains("2 shards, data in " + dir.resolve("flag-data")), server.output());
        }
        assertTrue(Files.isDirectory(dir.resolve("flag-data")));
        assertTrue(!Files.exists(dir.resolve("env-data")) && !Files.exists(dir.resolve("file-data")));
    }

    @Test
    void shard_fromConfigFileWithEnvironmentPort_servesOnTheEnvironmentsPort() throws Exception {
        int filePort = SimdexProcess.freePort();
        int envPort = SimdexProcess.freePort();
        Path conf = Files.writeString(dir.resolve("shard.properties"),
                "port=" + filePort + "\nshards=2\nexpected=1000\ndata=" + dir.resolve("shard-data") + "\n");
        try (SimdexProcess shard = SimdexProcess.start(dir.resolve("shard.log"), Map.of("SIMDEX_PORT", Integer.toString(envPort)), "shard",
                "--config", conf.toString())) {
            shard.awaitServing(envPort, "simdex.v1.Shard");
            assertTrue(shard.output().contains("data in " + dir.resolve("shard-data") + ", durability process, listening on 127.0.0.1:" + envPort),
                    shard.output());
        }
    }

    @Test
    void embedded_misspeltVariable_refusedAtStartNamingTheVariable() throws Exception {
        SimdexProcess.Result r = SimdexProcess.run(dir, Map.of("SIMDEX_PROT", "7411"), "embedded", "--data", dir.resolve("d").toString());
        assertEquals(2, r.exitCode(), r.output());
        assertTrue(r.output().contains("environment SIMDEX_PROT: names no key of embedded; did you mean SIMDEX_PORT (port)?"), r.output());
        assertTrue(!Files.exists(dir.resolve("d")), "a refused start made its data directory");
    }

    @Test
    void configCheck_showsTheVariableAsOrigin() throws Exception {
        Path conf = Files.writeString(dir.resolve("node.properties"),
                "id=node-1\nport=7511\natomix.port=7611\ndata=data\nseeds=node-1@127.0.0.1:7611\nreplication=3\n");
        SimdexProcess.Result r = SimdexProcess.run(dir, Map.of("SIMDEX_WRITE_QUORUM", "3"), "config", "check", conf.toString());
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("R=3 W=3"), r.output());
        assertTrue(r.output().lines().anyMatch(l -> l.matches(" +write\\.quorum +3 +environment SIMDEX_WRITE_QUORUM")), r.output());
    }
}
