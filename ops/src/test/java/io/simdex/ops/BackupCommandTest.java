package io.simdex.ops;

import io.simdex.client.ClientOptions;
import io.simdex.client.Doc;
import io.simdex.client.SimdexClient;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.server.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code simdex backup}: a running embedded server's data with fsync, copied and served again; without a log, refused; stopped, exact. */
class BackupCommandTest {
    @TempDir
    Path dir;

    private EmbeddedSimdex start(Path data, Durability durability) {
        return EmbeddedSimdex.start(data, 2, "127.0.0.1", 0, 10_000, HandlerThreads.perCore(), true, Clock.systemUTC(), durability);
    }

    private static SimdexClient client(EmbeddedSimdex server) {
        return SimdexClient.connect("127.0.0.1:" + server.port(), ClientOptions.DEFAULTS.withDeadline(Duration.ofSeconds(30)));
    }

    private static List<Doc> docs(int n) {
        List<Doc> docs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            docs.add(Doc.of("d" + i, 0x9E3779B97F4A7C15L * (i + 1)));
        }
        return docs;
    }

    /** {@code simdex backup --data DATA DIR/DEST}. */
    private CliRun backup(Path data, String dest) {
        return CliRun.of("backup", "--data", data.toString(), dir.resolve(dest).toString());
    }

    @Test
    void backup_ofARunningServerWithFsync_servesItsDocumentsAgain_andOfAStoppedOne_isExact() {
        Path data = dir.resolve("data");
        try (EmbeddedSimdex server = start(data, Durability.FSYNC); SimdexClient c = client(server)) {
            assertEquals(100, c.insert("default", docs(100)));
            CliRun live = backup(data, "live");
            assertEquals(0, live.code(), live.err());
            assertTrue(live.out().contains("2 shard directories copied while a server wrote them"), live.out());
        }
        CliRun stopped = backup(data, "stopped");
        assertEquals(0, stopped.code(), stopped.err());
        assertTrue(stopped.out().contains("no server held it: the copy is exact"), stopped.out());

        for (String copy : List.of("live", "stopped")) {
            try (EmbeddedSimdex server = start(dir.resolve(copy), Durability.PROCESS); SimdexClient c = client(server)) {
                for (Doc d : docs(100)) {
                    assertEquals(d.id(), c.query("default", List.of(d.fingerprint()), 0, 10).get(0).matches().get(0).id(), copy);
                }
            }
        }
    }

    @Test
    void backup_ofARunningServerWithoutALog_isRefused() {
        Path data = dir.resolve("data");
        try (EmbeddedSimdex server = start(data, Durability.PROCESS); SimdexClient c = client(server)) {
            assertEquals(1, c.insert("default", docs(1)));
            CliRun r = backup(data, "copy");
            assertEquals(2, r.code());
            assertTrue(r.err().contains("simdex backup: ") && r.err().contains("--durability process"), r.err());
        }
    }

    @Test
    void backup_ofAClusterMembersData_isRefused() throws Exception {
        Path data = Files.createDirectories(dir.resolve("node").resolve("atomix")).getParent();
        CliRun r = backup(data, "copy");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("restored from its replicas"), r.err());
        assertTrue(Files.notExists(dir.resolve("copy")), "something was copied");
    }
}
