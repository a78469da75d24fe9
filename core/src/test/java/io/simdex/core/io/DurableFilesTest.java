package io.simdex.core.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DurableFilesTest {
    @TempDir
    Path dir;

    @Test
    void replace_existingFile_newContentAndNoTmpLeft() throws IOException {
        Path file = dir.resolve("settings.json");
        Files.writeString(file, "old");
        DurableFiles.replace(file, "new ünïcode");
        assertEquals("new ünïcode", Files.readString(file));
        assertFalse(Files.exists(dir.resolve("settings.json.tmp")));
    }

    @Test
    void replace_missingDirectory_throwsAndWritesNothing() {
        Path file = dir.resolve("absent").resolve("settings.json");
        assertThrows(IOException.class, () -> DurableFiles.replace(file, "x"));
        assertFalse(Files.exists(file));
    }
}
