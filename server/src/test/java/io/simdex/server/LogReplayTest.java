package io.simdex.server;

import io.simdex.server.wal.LogFiles;
import io.simdex.server.wal.WriteAheadLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node that stopped without a checkpoint is rebuilt from its write-ahead log. The crash is
 * simulated as the worst case: the stores lost everything since they were created (none of
 * their pages reached the disk) and only the forced log segments survived.
 */
class LogReplayTest {
    private static final byte[] HASH = new byte[16];

    static {
        HASH[0] = 7;
    }

    @TempDir
    Path dir;
    @TempDir
    Path saved;

    @Test
    void open_afterCrashWithoutCheckpoint_replaysEveryWrite() throws IOException {
        writeThenCrash();
        try (ShardNode node = new ShardNode(dir, c -> TestShard.SIZING, Durability.FSYNC)) {
            assertRebuilt(node);
        }
    }

    @Test
    void open_processModeAfterFsyncCrash_replaysToo() throws IOException {
        writeThenCrash();
        try (ShardNode node = new ShardNode(dir, c -> TestShard.SIZING)) {
            assertRebuilt(node);
            assertFalse(LogFiles.hasSegments(dir.resolve(ShardLog.DIR)), "the replayed log was kept");
        }
    }

    @Test
    void checkpoint_smallSegments_dropsOldSegmentsAndKeepsState() throws IOException {
        try (ShardNode node = new ShardNode(dir, c -> TestShard.SIZING, Durability.FSYNC, WriteAheadLog.FILES, 1024)) {
            for (int i = 0; i < 200; i++) {
                node.bucketAdd("c", 0, 1, new long[] {1000L + i});
            }
            node.awaitDurable();
            node.checkpoint();
            assertEquals(1, segments().size(), "segments left after a checkpoint: " + segments());
            assertEquals(200, node.stats("c", 0).bucketEntries());
        }
        assertFalse(LogFiles.hasSegments(dir.resolve(ShardLog.DIR)), "a clean close left log segments");
    }

    @Test
    void durabilityParse_badValue_namesTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durability.parse("always"));
        assertEquals("durability must be one of process, fsync, was \"always\"", e.getMessage());
        assertEquals(Durability.FSYNC, Durability.parse(" FSYNC "));
    }

    private void writeThenCrash() throws IOException {
        Path log = dir.resolve(ShardLog.DIR);
        try (ShardNode node = new ShardNode(dir, c -> TestShard.SIZING, Durability.FSYNC)) {
            node.bindIds("c", 0, new String[] {"a", "b"}, new long[] {11, 22});
            node.attachIds("c", 0, new long[] {11, 22}, new String[] {"a", "b"});
            node.bucketAdd("c", 0, 2, new long[] {11, 22}, false);
            node.putTexts("c", 0, new String[] {"a", "k"}, new String[] {"short text of a", "a text kept by a key, then dropped"});
            node.recordContent("c", 0, new byte[][] {HASH}, new long[] {11});
            node.checkUrls("job", new byte[][] {HASH}, 100, 200, false);
            node.unbindIds("c", new String[] {"b"});
            node.detachIds("c", 0, new long[] {22}, new String[] {"b"});
            node.bucketRemove("c", 0, 2, new long[] {22});
            node.dropTexts("c", 0, new String[] {"k"});
            node.awaitDurable();
            copy(log, saved);
        }
        // The crash: every store file gone, the forced segments back, and a torn record after them.
        delete(dir);
        copy(saved, log);
        List<Path> segments = segments();
        Files.write(segments.get(segments.size() - 1), new byte[] {40, 0, 0, 0, 1, 2, 3}, StandardOpenOption.APPEND);
    }

    private static void assertRebuilt(ShardNode node) {
        assertArrayEquals(new String[] {"a"}, node.resolveIds("c", 0, 11, 0).ids());
        assertArrayEquals(new String[0], node.resolveIds("c", 0, 22, 0).ids());
        ShardNode.Found[] found = node.probe("c", new long[] {0}, 2, new long[] {11, 22}, 0);
        assertArrayEquals(new long[] {11}, found[0].fingerprints());
        assertEquals(0, found[1].fingerprints().length);
        assertArrayEquals(new String[] {"short text of a", null}, node.getTexts("c", new long[] {0}, new String[] {"a", "k"}));
        assertArrayEquals(new long[] {11}, node.lookupContent("c", new long[] {0}, new byte[][] {HASH}).fingerprints());
        assertFalse(node.checkUrls("job", new byte[][] {HASH}, 150, 300, true)[0], "the seen URL was forgotten");
        assertTrue(node.checkUrls("job", new byte[][] {HASH}, 250, 300, true)[0], "the URL's expiry was not replayed");
    }

    private List<Path> segments() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve(ShardLog.DIR))) {
            return s.filter(p -> p.toString().endsWith(".wal")).sorted().toList();
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path p : s.toList()) {
                Files.copy(p, to.resolve(p.getFileName()));
            }
        }
    }

    private static void delete(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                if (!p.equals(root)) {
                    Files.delete(p);
                }
            }
        }
    }
}
