package io.simdex.server;

import io.simdex.server.store.StoreSizing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** One process per shard data directory: a second opener is refused, naming the holder, until the holder closes or dies. */
class DataDirLockTest {
    @TempDir
    Path dir;

    private ShardNode open() {
        return new ShardNode(dir.resolve("shard"), c -> StoreSizing.forShare(10_000, 1, 16));
    }

    @Test
    void aDirectoryHeldInThisProcess_isRefusedToASecondNode_untilTheFirstCloses() throws Exception {
        try (ShardNode first = open()) {
            first.bindIds("c", 0, new String[] {"a"}, new long[] {1L});
            DataDirInUseException e = assertThrows(DataDirInUseException.class, this::open);
            assertTrue(e.getMessage().contains("is in use by another simdex process (pid " + ProcessHandle.current().pid() + ")"),
                    e.getMessage());
            // The refusal kept the lock: closing any descriptor of the file would have dropped it.
            assertAnotherProcessIsRefused();
        }
        try (ShardNode again = open()) {
            assertEquals(1, again.stats("c", 0).documents(), "documents the first node stored");
        }
    }

    @Test
    void aDirectoryHeldByAnotherProcess_isRefused_andTakenOnceThatProcessIsKilled() throws Exception {
        Process other = holder();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("locked", out.readLine(), "the other process's first line"); // a condition: it holds the lock

            DataDirInUseException e = assertThrows(DataDirInUseException.class, this::open);
            assertTrue(e.getMessage().contains("is in use by another simdex process (pid " + other.pid() + ")"), e.getMessage());

            other.destroyForcibly(); // SIGKILL: the kernel lets its lock go
            assertTrue(other.waitFor(30, TimeUnit.SECONDS));
            try (ShardNode node = open()) {
                node.bindIds("c", 0, new String[] {"a"}, new long[] {1L});
            }
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void aLockFileThatCannotNameItsPid_stillHoldsTheDirectory() throws Exception {
        // /dev/full answers every write with ENOSPC, as a full data disk answers the pid's.
        Path full = Path.of("/dev/full");
        assumeTrue(Files.isWritable(full), "no /dev/full here");
        Files.createDirectories(dir.resolve("shard"));
        Files.createSymbolicLink(dir.resolve("shard").resolve(DataDirLock.FILE), full);
        try (ShardNode node = open()) {
            node.bindIds("c", 0, new String[] {"a"}, new long[] {1L});
            assertAnotherProcessIsRefused();
        }
    }

    /** Starts {@link #holder} and requires that it finds the lock held. */
    private void assertAnotherProcessIsRefused() throws Exception {
        Process other = holder();
        try {
            assertTrue(other.waitFor(60, TimeUnit.SECONDS), "the other process still runs");
            assertEquals(1, other.exitValue(), "the other process took the lock: "
                    + new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            other.destroyForcibly();
        }
    }

    /**
     * Another process: a JVM that locks the shard directory's lock file as a node does, says
     * "locked" and waits; or, if the lock is held, exits with status 1.
     */
    private Process holder() throws Exception {
        Path holder = dir.resolve("Holder.java");
        Files.writeString(holder, """
                import java.nio.ByteBuffer;
                import java.nio.channels.FileChannel;
                import java.nio.file.Path;
                import java.nio.file.StandardOpenOption;

                public class Holder {
                    public static void main(String[] args) throws Exception {
                        FileChannel c = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                        if (c.tryLock() == null) {
                            System.exit(1);
                        }
                        c.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + "\\n").getBytes()));
                        System.out.println("locked");
                        Thread.sleep(600_000);
                    }
                }
                """);
        Files.createDirectories(dir.resolve("shard"));
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(java, holder.toString(), dir.resolve("shard").resolve(DataDirLock.FILE).toString())
                .redirectErrorStream(true).start();
    }
}
