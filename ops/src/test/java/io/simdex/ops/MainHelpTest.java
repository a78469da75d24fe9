package io.simdex.ops;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code simdex --help} names every command the jar runs: the client CLI's and the server's. */
class MainHelpTest {
    @Test
    void help_listsClientAndServerCommands() {
        CliRun run = CliRun.of("--help");
        assertEquals(0, run.code());
        for (String command : new String[] {"insert", "dedup", "load", "embedded", "shard", "router", "node", "config", "backup"}) {
            assertTrue(run.out().contains("\n  " + command + " "), command + " missing from:\n" + run.out());
        }
        assertTrue(run.out().indexOf("Server commands") > run.out().indexOf("insert"), run.out());
    }

    @Test
    void noCommand_isAnError_whoseUsageListsTheServerCommandsToo() {
        CliRun run = CliRun.of();
        assertNotEquals(0, run.code());
        assertTrue(run.err().contains("Missing required subcommand"), run.err());
        assertTrue(run.err().contains("\n  embedded "), run.err());
    }
}
