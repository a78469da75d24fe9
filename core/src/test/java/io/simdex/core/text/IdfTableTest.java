package io.simdex.core.text;

import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdfTableTest {
    private static final TextSettings TF_IDF = new TextSettings(Tokenization.WORDS, Weighting.TF_IDF, 1, true);
    private static final LongHashFunction XX3 = LongHashFunction.xx3();

    @Test
    void read_tabSeparatedLines_skipsCommentsAndBlanksNormalisesKeys() throws IOException {
        IdfTable table = IdfTable.read(new StringReader("# df from 1M pages\n\nRiver\t2.5\n堤坝\t6\nＡＢＣ\t1.25\r\n"));
        assertEquals(3, table.size());
        assertEquals(2.5, table.idf("river"));
        assertEquals(6.0, table.idf("堤坝"));
        assertEquals(1.25, table.idf("abc"));
    }

    @Test
    void read_unknownTerm_getsLargestIdf() throws IOException {
        IdfTable table = IdfTable.read(new StringReader("a\t0.5\nb\t7.5\nc\t3\n"));
        assertEquals(7.5, table.unknownIdf());
        assertEquals(7.5, table.idf("never-seen"));
    }

    @Test
    void read_empty_unknownIdfIsOne() throws IOException {
        assertEquals(1.0, IdfTable.read(new StringReader("# nothing\n")).unknownIdf());
    }

    @Test
    void read_malformedLines_throwNamingLine() {
        assertReadFails("river 2.5\n", "line 1: expected term<TAB>idf, got \"river 2.5\"");
        assertReadFails("a\t1\nb\t1\t2\n", "line 2: expected term<TAB>idf, got \"b\t1\t2\"");
        assertReadFails("\n\nriver\tlots\n", "line 3: idf is not a number: \"lots\"");
        assertReadFails("river\t-1\n", "line 1: idf must be finite and >= 0, got -1.0");
        assertReadFails("river\tNaN\n", "line 1: idf must be finite and >= 0, got NaN");
        assertReadFails("River\t1\nriver\t2\n", "line 2: term \"river\" listed twice");
    }

    @Test
    void builtIn_englishWordsAndHanCharacters_commonLowRareHigh() {
        IdfTable table = IdfTable.builtIn();
        assertTrue(table.size() > 10_000, "both languages loaded: " + table.size());
        assertTrue(table.idf("the") < 0.5, "the: " + table.idf("the"));
        assertTrue(table.idf("the") < table.idf("network") && table.idf("network") < table.unknownIdf(), "network: " + table.idf("network"));
        assertTrue(table.idf("的") < 0.5, "的: " + table.idf("的"));
        assertTrue(table.idf("的") < table.idf("堤") && table.idf("堤") <= table.unknownIdf(), "堤: " + table.idf("堤"));
        assertEquals(table.unknownIdf(), table.idf("xyzzyplugh"));
        assertSame(table, IdfTable.builtIn());
    }

    @Test
    void builtIn_unknownIdf_theRarestListedLnOf200AtMost() {
        double unknown = IdfTable.builtIn().unknownIdf();
        assertTrue(unknown > 4 && unknown <= Math.log(200), "unknown idf " + unknown);
    }

    @Test
    void builtIn_keysAreBuiltInSettingsFeatures() {
        TextFingerprinter features = TextFingerprinter.of(IdfTable.BUILT_IN_SETTINGS, IdfTable.builtIn());
        assertEquals(java.util.List.of("the", "河", "流"), features.terms("The 河流"));
        assertTrue(IdfTable.builtIn().idf("河") < IdfTable.builtIn().unknownIdf(), "single characters are listed");
    }

    @Test
    void uniform_everyIdfIsOne() {
        assertEquals(1.0, IdfTable.uniform().idf("anything"));
        assertEquals(0, IdfTable.uniform().size());
    }

    @Test
    void fingerprint_tfIdfWithoutTable_equalsTf() {
        TextFingerprinter tf = TextFingerprinter.defaults();
        TextFingerprinter tfIdf = TextFingerprinter.of(TF_IDF);
        assertEquals(tf.fingerprint(TestTexts.RIVER_EN), tfIdf.fingerprint(TestTexts.RIVER_EN));
    }

    @Test
    void fingerprint_zeroIdfTerms_dropOutOfTheSum() {
        // "levee" (tf 1, idf 3) outweighs "river" (tf 2, idf 1); "town" has idf 0 and counts for nothing.
        IdfTable table = IdfTable.of(Map.of("river", 1.0, "levee", 3.0, "town", 0.0), 0.0);
        long expected = SimHash.of(new long[] {XX3.hashChars("river"), XX3.hashChars("levee")}, new double[] {2, 3});
        assertEquals(expected, TextFingerprinter.of(TF_IDF, table).fingerprint("River town, levee; river town."));
    }

    @Test
    void of_tableWithTfWeighting_throws() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TextFingerprinter.of(TextSettings.defaults(), IdfTable.uniform()));
        assertEquals("an IdfTable needs Weighting.TF_IDF, settings have TF", e.getMessage());
    }

    @Test
    void of_keysEqualAfterNormalisation_throws() {
        assertThrows(IllegalArgumentException.class, () -> IdfTable.of(Map.of("River", 1.0, "river", 2.0), 1.0));
        assertThrows(IllegalArgumentException.class, () -> IdfTable.of(Map.of("river", 1.0), -0.5));
    }

    private static void assertReadFails(String text, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IdfTable.read(new StringReader(text)));
        assertEquals(message, e.getMessage());
    }

    @Test
    void with_replacesAndAddsTerms_normalised_andKeepsTheUnknownIdf() {
        IdfTable base = IdfTable.of(Map.of("river", 2.0, "dam", 3.0), 5.0);
        IdfTable given = base.with(Map.of("RIVER", 0.5, "weir", 4.0));
        assertEquals(0.5, given.idf("river"));
        assertEquals(3.0, given.idf("dam"));
        assertEquals(4.0, given.idf("weir"));
        assertEquals(5.0, given.idf("anything else"));
        assertEquals(2.0, base.idf("river"), "the table itself is unchanged");
        assertSame(base, base.with(Map.of()));
        assertThrows(IllegalArgumentException.class, () -> base.with(Map.of("river", -1.0)));
        assertThrows(IllegalArgumentException.class, () -> base.with(Map.of("Weir", 1.0, "weir", 2.0)));
    }
}
