package io.simdex.core.text;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Inverse document frequencies by feature, for {@link Weighting#TF_IDF}; a feature missing from
 * the table gets the table's {@link #unknownIdf()}. Immutable and thread-safe.
 *
 * <h2>Design</h2>
 * Keys are features exactly as {@link TextFingerprinter#terms} returns them (words, shingles
 * joined by one space, or character n-grams), so a table must be built from a corpus with the
 * same {@link TextSettings}. Keys are normalised on the way in (NFKC, lower case), like the
 * text. A term the table has never seen is at least as rare as its rarest term, so
 * {@link #read} gives unknown terms the table's largest idf. {@link #uniform()} is the built-in
 * default when no table is given: every idf is 1.0, which makes TF-IDF exactly TF.
 *
 * <h2>Built-in table</h2>
 * {@link #builtIn()} holds English words and single Han characters, the features of
 * {@link #BUILT_IN_SETTINGS} (with stop words dropped or kept), from {@code idf-en.txt} and
 * {@code idf-zh.txt} next to this class: the 10,000 English words in most files under a Debian
 * machine's {@code /usr/share/doc}, and the 3,341 Han characters that a page of text holds at
 * least once in 200, by the word frequencies of HanLP's core dictionary (165 KB together). {@code loadtest/quality/make-idf.sh} remakes
 * them, and each file's header says from what. Like the stop words, the table is part of the
 * data format of the collections that use it.
 *
 * <h2>Text format</h2>
 * <pre>
 *   # comment lines and blank lines are skipped
 *   river&lt;TAB&gt;3.21
 *   堤坝&lt;TAB&gt;5.8
 * </pre>
 * One {@code term<TAB>idf} per line, UTF-8 when read from bytes; idf finite and at least 0.
 * A term cannot contain a tab (whitespace is never part of a feature), and '#' never starts a
 * feature, so comments cannot clash with terms.
 */
public final class IdfTable {
    /** The features {@link #builtIn()} is keyed by: words, Han runs cut into characters. */
    public static final TextSettings BUILT_IN_SETTINGS =
            new TextSettings(Tokenization.WORDS, Weighting.TF_IDF, 1, false, HanTokens.CHARACTERS);
    private static final String[] BUILT_IN_RESOURCES = {"idf-en.txt", "idf-zh.txt"};
    private static final IdfTable UNIFORM = new IdfTable(Map.of(), 1.0);

    private final Map<String, Double> idfByTerm;
    private final double unknownIdf;

    private IdfTable(Map<String, Double> idfByTerm, double unknownIdf) {
        this.idfByTerm = idfByTerm;
        this.unknownIdf = unknownIdf;
    }

    /** The built-in default: idf 1.0 for every term, so TF-IDF weighting equals TF. */
    public static IdfTable uniform() {
        return UNIFORM;
    }

    /**
     * The built-in English and Chinese table (see the class comment); unknown terms get its
     * largest idf. Loaded on first use and shared.
     */
    public static IdfTable builtIn() {
        return BuiltInHolder.INSTANCE;
    }

    /**
     * A table from a map, keys normalised.
     *
     * @throws IllegalArgumentException on an invalid idf, or two keys equal after normalisation
     */
    public static IdfTable of(Map<String, ? extends Number> idfByTerm, double unknownIdf) {
        requireIdf(unknownIdf, "unknownIdf");
        Map<String, Double> table = new HashMap<>(idfByTerm.size() * 2);
        idfByTerm.forEach((term, idf) -> put(table, term, idf.doubleValue(), "term \"" + term + "\""));
        return new IdfTable(Map.copyOf(table), unknownIdf);
    }

    /**
     * This table with the idf of each term of {@code overrides} (keys normalised) replaced or
     * added; unknown terms keep this table's idf.
     *
     * @throws IllegalArgumentException on an invalid idf, or two keys equal after normalisation
     */
    public IdfTable with(Map<String, ? extends Number> overrides) {
        if (overrides.isEmpty()) {
            return this;
        }
        Map<String, Double> given = new HashMap<>(overrides.size() * 2);
        overrides.forEach((term, idf) -> put(given, term, idf.doubleValue(), "term \"" + term + "\""));
        Map<String, Double> table = new HashMap<>(idfByTerm);
        table.putAll(given);
        return new IdfTable(Map.copyOf(table), unknownIdf);
    }

    /**
     * Reads {@code term<TAB>idf} lines as UTF-8; see {@link #read(Reader)}. Does not close the stream.
     *
     * @throws IllegalArgumentException on a malformed line, an invalid idf or a repeated term
     */
    public static IdfTable read(InputStream in) throws IOException {
        return read(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /**
     * Reads {@code term<TAB>idf} lines; unknown terms get the largest idf read (1.0 if none).
     * Does not close the reader.
     *
     * @throws IllegalArgumentException on a malformed line, an invalid idf or a repeated term,
     *                                  naming the line number
     */
    public static IdfTable read(Reader reader) throws IOException {
        Map<String, Double> table = new HashMap<>();
        double maxIdf = readInto(reader, table);
        return new IdfTable(Map.copyOf(table), table.isEmpty() ? 1.0 : maxIdf);
    }

    /** Adds {@code term<TAB>idf} lines to {@code table}; returns the largest idf read (-infinity if none). */
    private static double readInto(Reader reader, Map<String, Double> table) throws IOException {
        BufferedReader lines = reader instanceof BufferedReader buffered ? buffered : new BufferedReader(reader);
        double maxIdf = Double.NEGATIVE_INFINITY;
        int lineNumber = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            lineNumber++;
            if (line.isBlank() || line.charAt(0) == '#') {
                continue;
            }
            int tab = line.indexOf('\t');
            if (tab <= 0 || line.indexOf('\t', tab + 1) >= 0) {
                throw new IllegalArgumentException(
                        "line " + lineNumber + ": expected term<TAB>idf, got \"" + line + "\"");
            }
            double idf = parseIdf(line.substring(tab + 1).strip(), lineNumber);
            put(table, line.substring(0, tab), idf, "line " + lineNumber);
            maxIdf = Math.max(maxIdf, idf);
        }
        return maxIdf;
    }

    private static IdfTable loadBuiltIn() {
        Map<String, Double> table = new HashMap<>();
        double maxIdf = Double.NEGATIVE_INFINITY;
        for (String resource : BUILT_IN_RESOURCES) {
            try (InputStream in = IdfTable.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("idf table missing from the class path: " + resource);
                }
                maxIdf = Math.max(maxIdf, readInto(new InputStreamReader(in, StandardCharsets.UTF_8), table));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read idf table " + resource, e);
            }
        }
        return new IdfTable(Map.copyOf(table), maxIdf);
    }

    /** The idf of a normalised feature, or {@link #unknownIdf()} if the table lacks it. */
    public double idf(String term) {
        Double idf = idfByTerm.get(term);
        return idf != null ? idf : unknownIdf;
    }

    /** The idf given to features the table does not list. */
    public double unknownIdf() {
        return unknownIdf;
    }

    /** Number of terms listed. */
    public int size() {
        return idfByTerm.size();
    }

    private static void put(Map<String, Double> table, String term, double idf, String where) {
        requireIdf(idf, where);
        String key = Normalization.apply(term.strip());
        if (key.isEmpty()) {
            throw new IllegalArgumentException(where + ": empty term");
        }
        if (table.putIfAbsent(key, idf) != null) {
            throw new IllegalArgumentException(where + ": term \"" + key + "\" listed twice");
        }
    }

    private static double parseIdf(String text, int lineNumber) {
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "line " + lineNumber + ": idf is not a number: \"" + text + "\"", e);
        }
    }

    private static void requireIdf(double idf, String where) {
        if (!(idf >= 0) || Double.isInfinite(idf)) {
            throw new IllegalArgumentException(where + ": idf must be finite and >= 0, got " + idf);
        }
    }

    /** Loads the built-in table on first use, not when the class loads. */
    private static final class BuiltInHolder {
        static final IdfTable INSTANCE = loadBuiltIn();
    }
}
