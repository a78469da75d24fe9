package io.simdex.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings that cannot work stop a server command before it opens anything, with exit code 2. */
class StartupSecurityTest {
    @TempDir
    Path dir;

    @Test
    void embedded_plaintextBeyondLoopback_refused() {
        Path data = dir.resolve("data");
        assertEquals(2, Main.run("embedded", "--host", "0.0.0.0", "--port", "0", "--data", data.toString()));
        assertFalse(Files.exists(data), "nothing opened");
    }

    @Test
    void embedded_malformedAuthFileLine_refused() throws Exception {
        Path data = dir.resolve("data");
        Path auth = Files.writeString(dir.resolve("auth"), "owner * sha256:" + "0".repeat(64) + "\n");
        assertEquals(2, Main.run("embedded", "--port", "0", "--data", data.toString(), "--auth-file", auth.toString()));
        assertFalse(Files.exists(data), "nothing opened");
    }

    @Test
    void embedded_certificateWithoutKey_refused() throws Exception {
        Path cert = Files.writeString(dir.resolve("server.crt"), "");
        assertEquals(2, Main.run("embedded", "--port", "0", "--data", dir.resolve("data").toString(), "--tls-cert", cert.toString()));
    }

    @Test
    void shard_withoutPort_refusedBeforeOpeningItsData() {
        Path data = dir.resolve("data");
        assertEquals(2, Main.run("shard", "--data", data.toString()));
        assertFalse(Files.exists(data), "nothing opened");
    }

    @Test
    void shard_plaintextBeyondLoopbackFromTheFile_refused() throws Exception {
        Path data = dir.resolve("data");
        Path conf = Files.writeString(dir.resolve("shard.properties"), "host=0.0.0.0\nport=0\ndata=" + data + "\n");
        assertEquals(2, Main.run("shard", "--config", conf.toString()));
        assertFalse(Files.exists(data), "nothing opened");
    }

    @Test
    void router_shardAddressWithoutPort_refused() {
        assertEquals(2, Main.run("router", "--shard", "127.0.0.1", "--port", "0", "--data", dir.resolve("router").toString()));
    }
}
