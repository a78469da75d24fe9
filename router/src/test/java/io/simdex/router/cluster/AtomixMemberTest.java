package io.simdex.router.cluster;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Starting a Raft member whose start cannot complete: a founder of a two-member Raft group
 * started alone has no quorum, so each attempt times out, is stopped, and a new instance
 * starts on the same port and Raft storage.
 */
class AtomixMemberTest {
    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Logger log = Logger.getLogger(AtomixMember.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            warnings.add(r.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    {
        log.addHandler(capture);
    }

    @AfterEach
    void close() throws Exception {
        log.removeHandler(capture);
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private ClusterConfig config(String id, int[] atomixPorts) throws IOException {
        Properties p = new Properties();
        p.setProperty("id", id);
        p.setProperty("host", "127.0.0.1");
        p.setProperty("port", String.valueOf(freePort()));
        p.setProperty("atomix.port", String.valueOf(atomixPorts[id.equals("node-1") ? 0 : 1]));
        p.setProperty("data", dir.resolve(id).toString());
        p.setProperty("seeds", "node-1@127.0.0.1:" + atomixPorts[0] + ",node-2@127.0.0.1:" + atomixPorts[1]);
        p.setProperty("raft", "node-1,node-2");
        return ClusterConfig.of(p, id + ".properties");
    }

    @Test
    void start_stalledUntilAQuorumIsUp_isStartedAgainAndJoins() throws Exception {
        int[] ports = {freePort(), freePort()};
        CompletableFuture<AtomixMember> first = CompletableFuture.supplyAsync(() -> {
            try {
                return new AtomixMember(config("node-1", ports), "node", dir.resolve("node-1").resolve("atomix"), null,
                        Duration.ofSeconds(3), 5);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // node-2 starts only once node-1's first attempt has been given up, so node-1 can join
        // only through a later attempt: a new instance on the same port and Raft storage.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (warnings.stream().noneMatch(w -> w.contains("attempt 1 of 5")) && !first.isDone()) {
            assertTrue(System.nanoTime() < deadline, "node-1's first attempt was not given up within 60 s; warnings: " + warnings);
            TimeUnit.MILLISECONDS.sleep(50);
        }
        assertFalse(first.isDone(), "node-1 started without a quorum: " + first);
        AtomixMember second = new AtomixMember(config("node-2", ports), "node", dir.resolve("node-2").resolve("atomix"), null);
        open.add(second);
        AtomixMember restarted = first.get(90, TimeUnit.SECONDS);
        open.add(restarted);

        assertEquals(Set.of("node-1", "node-2"), Set.copyOf(restarted.liveIds()));
        MissedWrites marks = new MissedWrites(restarted.atomix());
        open.add(marks);
        marks.mark("node-9").get(30, TimeUnit.SECONDS);
        MissedWrites peer = new MissedWrites(second.atomix());
        open.add(peer);
        assertTrue(peer.markVersion("node-9") >= 0, "the restarted member's Raft writes reach its peer");
    }

    @Test
    void start_neverReachingAQuorum_failsAfterItsAttemptsAndFreesItsPort() throws Exception {
        int[] ports = {freePort(), freePort()};
        long started = System.nanoTime();
        TimeoutException e = assertThrows(TimeoutException.class, () -> new AtomixMember(config("node-1", ports), "node",
                dir.resolve("node-1").resolve("atomix"), null, Duration.ofSeconds(1), 2));
        assertTrue(e.getMessage().contains("[node-1, node-2]") || e.getMessage().contains("[node-2, node-1]"), e.getMessage());
        assertTrue(System.nanoTime() - started >= TimeUnit.SECONDS.toNanos(3), "two attempts of 1 s and 2 s");
        assertEquals(1, warnings.stream().filter(w -> w.contains("stopping it and starting again")).count(), warnings.toString());
        try (ServerSocket s = new ServerSocket(ports[0], 1, InetAddress.getByName("127.0.0.1"))) {
            assertEquals(ports[0], s.getLocalPort(), "the stopped attempts released the Atomix port");
        }
    }
}
