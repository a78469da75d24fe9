package io.simdex.loadtest.jmh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** dedup-cpu's weighing of a collection: its files on every shard, and those of the sketch verification among them. */
class DedupCpuFootprintTest {
    @TempDir
    Path data;

    @Test
    void footprint_collectionOnTwoShards_allFilesAndTheVerificationsApart() throws IOException {
        file("shard-0/on/g-0/fpsketches-0.cm", 100);
        file("shard-0/on/g-0/ids-0.cm", 40);
        file("shard-1/on/g-0/sketches-1.cm", 7);
        file("shard-1/on/g-0/texts-0.cm", 3);
        file("shard-1/on/g-0/content-0.cm", 20);
        file("shard-1/on/g-0/geometry.properties", 5);
        // Another collection, and a directory that is not a shard's.
        file("shard-1/off/g-0/fpsketches-0.cm", 1000);
        file("router/on/texts-0.cm", 1000);

        DedupCpuCommand.Footprint f = DedupCpuCommand.footprint(data, "on");

        assertEquals(175, f.all());
        assertEquals(110, f.verification());
        assertEquals(new DedupCpuCommand.Footprint(0, 0), DedupCpuCommand.footprint(data, "absent"));
    }

    private void file(String path, int bytes) throws IOException {
        Path f = data.resolve(path);
        Files.createDirectories(f.getParent());
        Files.write(f, new byte[bytes]);
    }
}
