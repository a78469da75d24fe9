package io.simdex.server;

import io.simdex.server.store.MapFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Backups of a shard's data directory: taken while a node with a write-ahead log writes, every
 * write acknowledged before the copy began is in it; a checkpoint during the copy starts it
 * again; a node without a log is refused; a stopped node's copy is exact, and sparse.
 */
class DataDirBackupTest {
    @TempDir
    Path root;
    @TempDir
    Path to;

    private Path shard() {
        return root.resolve("shard-0");
    }

    private static long fp(int i) {
        return 0x9E3779B97F4A7C15L * (i + 1);
    }

    /** Document i, as a router stores it: its id bound, its fingerprint's id, one table's entry; then durable. */
    private static void write(ShardNode node, int i) {
        String[] id = {"d" + i};
        long[] fp = {fp(i)};
        node.bindIds("c", 0, id, fp);
        node.attachIds("c", 0, fp, id);
        node.bucketAdd("c", 0, 1, fp);
        node.awaitDurable();
    }

    private static void assertHolds(ShardNode node, int documents) {
        for (int i = 0; i < documents; i++) {
            assertArrayEquals(new String[] {"d" + i}, node.resolveIds("c", 0, fp(i), 0).ids(), "document " + i);
            assertArrayEquals(new long[] {fp(i)}, node.probe("c", new long[] {0}, 1, new long[] {fp(i)}, 0)[0].fingerprints(),
                    "document " + i + "'s table entry");
        }
    }

    @Test
    void aRunningNodeWithALog_copiedWhileItWrites_holdsEveryWriteAcknowledgedBeforeTheCopy() throws Exception {
        AtomicInteger acknowledged = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        int before;
        DataDirBackup.Copied copied;
        try (ShardNode node = new ShardNode(shard(), c -> TestShard.SIZING, Durability.FSYNC)) {
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        write(node, i);
                        acknowledged.set(i + 1);
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            writer.start();
            while (acknowledged.get() < 500 && failed.get() == null) {
                Thread.onSpinWait();
            }
            before = acknowledged.get();
            copied = DataDirBackup.copy(root, to);
            int during = acknowledged.get() - before;
            stop.set(true);
            writer.join();
            assertEquals(null, failed.get());
            assertTrue(during > 0, "nothing was written during the copy");
        }
        assertEquals(1, copied.liveShards());
        assertEquals(1, copied.attempts());
        try (ShardNode restored = new ShardNode(to.resolve("shard-0"), c -> TestShard.SIZING, Durability.FSYNC)) {
            assertHolds(restored, before);
            assertTrue(restored.stats("c", 0).documents() >= before);
        }
    }

    @Test
    void aCheckpointDuringTheCopy_deletesRecordsTheCopiedMapsLack_soTheCopyStartsAgain() throws Exception {
        DataDirBackup.Copied copied;
        try (ShardNode node = new ShardNode(shard(), c -> TestShard.SIZING, Durability.FSYNC)) {
            for (int i = 0; i < 200; i++) {
                write(node, i);
            }
            // Between the maps and the log of the first attempt: 100 more documents, then a
            // checkpoint, which deletes the segment holding their records.
            copied = DataDirBackup.copy(root, to, () -> {
                for (int i = 200; i < 300; i++) {
                    write(node, i);
                }
                node.checkpoint();
            });
        }
        try (ShardNode restored = new ShardNode(to.resolve("shard-0"), c -> TestShard.SIZING, Durability.FSYNC)) {
            assertHolds(restored, 300);
        }
        assertEquals(2, copied.attempts());
    }

    @Test
    void aCatalogChangedDuringTheCopy_aCollectionMadeOrDeleted_startsItAgain() throws Exception {
        Path catalog = Files.createDirectories(root.resolve("router")).resolve("collections.json");
        Files.writeString(catalog, "{\"default\": {}}");
        try (ShardNode node = new ShardNode(shard(), c -> TestShard.SIZING, Durability.FSYNC)) {
            write(node, 0);
            String made = "{\"default\": {}, \"news\": {}}";
            DataDirBackup.Copied copied = DataDirBackup.copy(root, to, () -> {
                try {
                    Files.writeString(catalog, made);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            assertEquals(2, copied.attempts());
            assertEquals(made, Files.readString(to.resolve("router/collections.json")));
        }
    }

    @Test
    void aRunningNodeWithoutALog_isRefused_andNothingIsCopied() throws Exception {
        try (ShardNode node = new ShardNode(shard(), c -> TestShard.SIZING, Durability.PROCESS)) {
            write(node, 0);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> DataDirBackup.copy(root, to));
            assertTrue(e.getMessage().contains("--durability process"), e.getMessage());
        }
        try (Stream<Path> copied = Files.list(to)) {
            assertEquals(0, copied.count());
        }
    }

    @Test
    void aStoppedNode_isCopiedExactly_itsMapFilesSparse() throws Exception {
        try (ShardNode node = new ShardNode(shard(), c -> TestShard.SIZING, Durability.PROCESS)) {
            for (int i = 0; i < 100; i++) {
                write(node, i);
            }
        }
        DataDirBackup.Copied copied = DataDirBackup.copy(root, to);
        assertEquals(0, copied.liveShards());
        long apparent = 0;
        try (Stream<Path> files = Files.walk(shard())) {
            for (Path p : files.filter(Files::isRegularFile).toList()) {
                Path copy = to.resolve(root.relativize(p).toString());
                if (p.getFileName().toString().equals(".lock")) {
                    assertTrue(Files.notExists(copy), "the lock file was copied");
                    continue;
                }
                assertEquals(Files.size(p), Files.size(copy), p.toString());
                apparent += Files.size(p);
            }
        }
        assertTrue(copied.bytes() < apparent / 2, "blocks of zeros written: " + copied.bytes() + " of " + apparent + " bytes");
        assertTrue(hasCleanMarker(to), "a stopped node's copy keeps its clean-close markers");
        try (ShardNode restored = new ShardNode(to.resolve("shard-0"), c -> TestShard.SIZING)) {
            assertHolds(restored, 100);
        }
    }

    private static boolean hasCleanMarker(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.anyMatch(p -> p.getFileName().toString().equals(MapFiles.CLEAN_MARKER));
        }
    }
}
