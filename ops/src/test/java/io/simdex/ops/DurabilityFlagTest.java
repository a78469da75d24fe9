package io.simdex.ops;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --durability} on the launchers: a bad value is refused before anything starts, naming the choices. */
class DurabilityFlagTest {
    @Test
    void embedded_badDurability_usageErrorNamingTheChoices() {
        assertRefused(new EmbeddedCommand());
    }

    @Test
    void shard_badDurability_usageErrorNamingTheChoices() {
        assertRefused(new ShardCommand());
    }

    @Test
    void embeddedHelp_listsDurabilityWithItsDefault() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new EmbeddedCommand());
        cli.setOut(new PrintWriter(out));
        assertEquals(0, cli.execute("--help"));
        assertTrue(out.toString().contains("--durability=<durability>"), out.toString());
        assertTrue(out.toString().contains("(default: process)"), out.toString());
    }

    private static void assertRefused(Object command) {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(command);
        cli.setErr(new PrintWriter(err));
        assertEquals(2, cli.execute("--data", "unused", "--port", "1", "--durability", "always"));
        assertTrue(err.toString().contains("durability must be one of process, fsync, was \"always\""), err.toString());
    }
}
