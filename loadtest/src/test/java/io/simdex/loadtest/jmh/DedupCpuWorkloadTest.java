package io.simdex.loadtest.jmh;

import io.simdex.loadtest.Json;
import io.simdex.loadtest.gen.TextCorpus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.google.gson.reflect.TypeToken;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * dedup-cpu's workload: every measured text new (a repeat would take its fingerprint from the
 * content index, which made the cheaper mode measure repeats), half of them near-duplicates of
 * stored texts; and a whole run on a small store, whose Dedups' documents are deleted after them.
 */
class DedupCpuWorkloadTest {
    @TempDir
    Path dir;

    @Test
    void newText_almostNeverRepeats_halfAreNearCopiesOfStoredTexts() {
        DedupCpuCommand command = new DedupCpuCommand();
        command.words = 20;
        TextCorpus corpus = TextCorpus.wide(42);
        String[] loaded = new String[500];
        for (int i = 0; i < loaded.length; i++) {
            loaded[i] = corpus.document(i % 2 == 0 ? TextCorpus.Language.ENGLISH : TextCorpus.Language.CHINESE, command.words);
        }
        Set<String> stored = Set.of(loaded);
        Set<String> seen = new HashSet<>();
        int repeats = 0;
        int storedCopies = 0;
        for (int j = 0; j < 3_000; j++) {
            for (int offset : new int[]{0, loaded.length / 2}) {
                String text = command.newText(corpus, loaded, j, offset);
                // Two near copies of one source with the same replacements are the same text: rare.
                repeats += seen.add(text) ? 0 : 1;
                // A near copy whose one replaced word drew itself is its source: an exact copy of a stored text.
                storedCopies += stored.contains(text) ? 1 : 0;
                if (j % 2 == 0 && (j / 2 + offset) % 2 == 0) {
                    String[] source = loaded[(j / 2 + offset) % loaded.length].split(" ");
                    String[] copy = text.split(" ");
                    assertEquals(source.length, copy.length);
                    int changed = 0;
                    for (int w = 0; w < source.length; w++) {
                        changed += source[w].equals(copy[w]) ? 0 : 1;
                    }
                    assertTrue(changed <= 19, "near copy " + j + ": " + changed + " words changed");
                }
            }
        }
        assertTrue(repeats < 30, repeats + " of 6,000 texts sent twice");
        assertTrue(storedCopies < 30, storedCopies + " of 6,000 texts equal a stored one");
    }

    @Test
    void call_newTexts_measuresBothModes_andWeighsTheLoadedStore() throws IOException {
        DedupCpuCommand command = new DedupCpuCommand();
        command.stored = 300;
        command.rounds = 6;
        command.words = 20;
        command.modes = List.of("off", "on");
        command.expected = 300;
        command.json = dir.resolve("cpu.json");
        assertEquals(0, command.call());
        DedupCpuCommand.Result r = Json.read(command.json, TypeToken.get(DedupCpuCommand.Result.class));
        assertEquals("new", r.texts());
        assertEquals(4, r.measuredBatches());
        for (DedupCpuCommand.ModeResult m : r.modes()) {
            assertTrue(m.documents() > 250 && m.documents() <= 300, m.mode() + ": " + m.documents() + " documents once loaded");
            assertTrue(m.dedup().median() > 0, m.mode());
        }
        assertTrue(r.modes().get(1).dedupRatio() > 0, "the default against off");
    }
}
