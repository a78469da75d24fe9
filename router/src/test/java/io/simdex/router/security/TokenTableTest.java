package io.simdex.router.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenTableTest {
    @TempDir
    Path dir;

    @Test
    void hashOf_isTheSha256OfTheUtf8Token() {
        // sha256("test"), as `printf %s test | sha256sum` prints it
        assertEquals("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", TokenTable.hashOf("test"));
    }

    @Test
    void grantsOf_everyLineOfTheToken_noneForOthers() {
        TokenTable t = TokenTable.parse(List.of("# comment", "", "write news " + TokenTable.hashOf("a"),
                "  read   *   " + TokenTable.hashOf("a"), "admin * " + TokenTable.hashOf("b")), "auth");
        assertEquals(List.of(new Grant(Role.WRITE, "news"), new Grant(Role.READ, "*")), t.grantsOf("a"));
        assertEquals(List.of(new Grant(Role.ADMIN, "*")), t.grantsOf("b"));
        assertEquals(List.of(), t.grantsOf("c"));
        assertEquals(List.of(), t.grantsOf(""));
    }

    @Test
    void parse_malformedLine_namesFileAndLine() {
        String good = "read * " + TokenTable.hashOf("a");
        assertMessage("auth line 2: role 'reader' is not read, write or admin", good, "reader * " + TokenTable.hashOf("b"));
        assertMessage("auth line 3: expected ROLE COLLECTION sha256:HEX, found 2 fields", good, "", "read " + TokenTable.hashOf("b"));
        assertMessage("auth line 1: 'md5:00' does not start with sha256:", "read * md5:00");
        assertMessage("auth line 1: the hash has 3 hex digits, not 64", "read * sha256:abc");
        assertMessage("auth line 1: '" + "zz".repeat(32) + "' is not hexadecimal", "read * sha256:" + "zz".repeat(32));
    }

    private static void assertMessage(String expected, String... lines) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TokenTable.parse(List.of(lines), "auth"));
        assertEquals(expected, e.getMessage());
    }

    @Test
    void serverSecurity_malformedAuthFile_isAStartupError() throws Exception {
        Path auth = Files.writeString(dir.resolve("auth"), "admin * " + TokenTable.hashOf("a") + "\nwrite\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerSecurity.builder().authFile(auth).build());
        assertEquals(auth + " line 2: expected ROLE COLLECTION sha256:HEX, found 1 fields", e.getMessage());
    }

    @Test
    void authFile_unchangedStamp_keepsTable_changedFile_readAgain() throws Exception {
        Path auth = Files.writeString(dir.resolve("auth"), "admin * " + TokenTable.hashOf("a") + "\n");
        AuthFile f = AuthFile.load(auth, Duration.ZERO);
        TokenTable first = f.current();
        assertTrue(first == f.current(), "an unchanged file is not parsed again");
        Files.writeString(auth, "read * " + TokenTable.hashOf("b") + "\nread * " + TokenTable.hashOf("c") + "\n");
        assertEquals(List.of(new Grant(Role.READ, "*")), f.current().grantsOf("b"));
        assertEquals(List.of(), f.current().grantsOf("a"));
    }
}
