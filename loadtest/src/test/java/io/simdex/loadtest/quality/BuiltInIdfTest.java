package io.simdex.loadtest.quality;

import com.hankcs.hanlp.dictionary.CoreDictionary;
import io.simdex.core.text.IdfTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BuiltInIdfTest {
    @TempDir
    Path dir;

    @Test
    void forEachWord_walksTheWholeTrie_withTheDictionarysFrequencies() {
        Map<String, Integer> words = new HashMap<>();
        BuiltInIdf.forEachWord(words::put);
        assertEquals(CoreDictionary.trie.size(), words.size());
        assertEquals(CoreDictionary.getTermFrequency("政府"), words.get("政府"));
        assertEquals(CoreDictionary.getTermFrequency("的"), words.get("的"));
    }

    @Test
    void english_documentFrequencyPerFile_commonWordsOnlyAndReadableByIdfTable() throws IOException {
        for (int i = 0; i < 400; i++) {
            Files.writeString(dir.resolve("doc" + i + ".txt"), "The package " + (i % 2 == 0 ? "network" : "") + " word" + i);
        }
        Files.write(dir.resolve("binary"), new byte[] {'a', 0, 'b'});
        String table = BuiltInIdf.english(dir);
        assertTrue(table.startsWith("# English idf = ln(N / df), N = 400 files"), table.lines().findFirst().orElse(""));
        IdfTable idf = IdfTable.read(new StringReader(table));
        assertEquals(3, idf.size(), "the, package, network; each word<i> is in 1 file of 400");
        assertEquals(0.0, idf.idf("the"));
        assertEquals(Math.log(2), idf.idf("network"), 0.0005);
    }
}
