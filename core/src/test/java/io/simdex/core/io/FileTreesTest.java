package io.simdex.core.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileTreesTest {
    @TempDir
    Path dir;

    @Test
    void delete_removesTheTreeAndItsRoot_leavesItsSiblings() throws IOException {
        Path root = tree("g-1");
        Path sibling = Files.writeString(dir.resolve("g-2.cm"), "kept");
        FileTrees.delete(root);
        assertFalse(Files.exists(root));
        assertTrue(Files.exists(sibling));
    }

    @Test
    void delete_ofNothing_isNothing() throws IOException {
        FileTrees.delete(dir.resolve("absent"));
        assertTrue(Files.isDirectory(dir));
    }

    @Test
    void clear_removesWhatIsUnder_keepsTheDirectory() throws IOException {
        Path root = tree("backup");
        FileTrees.clear(root);
        assertTrue(Files.isDirectory(root));
        try (var left = Files.list(root)) {
            assertFalse(left.findAny().isPresent());
        }
    }

    /** {@code name} with files at two depths and an empty directory. */
    private Path tree(String name) throws IOException {
        Path root = Files.createDirectories(dir.resolve(name));
        Files.writeString(root.resolve("ids-0.cm"), "a");
        Path sub = Files.createDirectories(root.resolve("write.log"));
        Files.writeString(sub.resolve("00000000000000000001.wal"), "b");
        Files.createDirectories(root.resolve("empty"));
        return root;
    }
}
