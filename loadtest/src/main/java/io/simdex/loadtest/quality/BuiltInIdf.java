package io.simdex.loadtest.quality;

import com.hankcs.hanlp.collection.trie.DoubleArrayTrie;
import com.hankcs.hanlp.dictionary.CoreDictionary;
import io.simdex.core.text.IdfTable;
import io.simdex.core.text.TextFingerprinter;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Writes core's built-in idf tables ({@link IdfTable#builtIn()}), run by
 * {@code loadtest/quality/make-idf.sh}. Keys are the features of
 * {@link IdfTable#BUILT_IN_SETTINGS}: English words and single Han characters.
 *
 * <ul>
 *   <li>English: the files under {@code /usr/share/doc} (READMEs, changelogs, copyright files
 *       and the rest every installed Debian package ships; gzip read, binary files skipped),
 *       one document per file: idf = ln(N / df).</li>
 *   <li>Chinese: the word frequencies of HanLP's core dictionary (the mini dictionary in the
 *       {@code com.hankcs.hanlp:portable} jar core already depends on). A character's share p of
 *       all characters is its summed frequency in the dictionary's words; a document of
 *       {@value #ZH_DOC_CHARS} characters drawn at that rate holds it with probability
 *       1 - (1 - p)^{@value #ZH_DOC_CHARS}, and idf = -ln of that, on the English scale.</li>
 * </ul>
 * Both keep only terms in at least one document in {@value #RAREST} (idf <= ln {@value #RAREST}),
 * at most {@value #MAX_TERMS} each: a table lists the common terms, and a term it lacks is
 * rarer, which is what {@link IdfTable#read}'s largest-idf rule for unknown terms assumes. Terms
 * are sorted and idf printed with three decimals, so the same inputs give the same bytes.
 */
public final class BuiltInIdf {
    /** Terms in fewer than one document in this many are left out (they get the unknown idf). */
    static final int RAREST = 200;
    static final int MAX_TERMS = 10_000;
    /** Characters per document for the Chinese estimate: a page of text. */
    static final int ZH_DOC_CHARS = 1000;
    /** Larger files are changelogs and licences many times over; their head is enough for document frequency. */
    private static final int MAX_DOC_CHARS = 200_000;

    private BuiltInIdf() {
    }

    /** Arguments: the /usr/share/doc root and the directory to write idf-en.txt and idf-zh.txt to. */
    public static void main(String[] args) throws IOException {
        Path docs = Path.of(args[0]);
        Path out = Path.of(args[1]);
        Files.writeString(out.resolve("idf-en.txt"), english(docs), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("idf-zh.txt"), chinese(), StandardCharsets.UTF_8);
    }

    static String english(Path root) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        TextFingerprinter features = TextFingerprinter.of(IdfTable.BUILT_IN_SETTINGS);
        Map<String, Integer> df = new HashMap<>();
        int documents = 0;
        for (Path file : files) {
            String text = text(file);
            if (text == null) {
                continue;
            }
            documents++;
            Set<String> terms = new HashSet<>(features.terms(text));
            for (String term : terms) {
                if (term.codePoints().noneMatch(Language::isHan)) {
                    df.merge(term, 1, Integer::sum);
                }
            }
        }
        Map<String, Double> idf = new HashMap<>();
        int n = documents;
        df.forEach((term, count) -> idf.put(term, Math.log(n / (double) count)));
        return table("# English idf = ln(N / df), N = " + documents + " files under /usr/share/doc, one document per file.\n", idf);
    }

    static String chinese() {
        Map<String, Long> frequency = new HashMap<>();
        forEachWord((word, count) -> {
            if (word.codePoints().allMatch(Language::isHan)) { // not its markers such as 始##始
                word.codePoints().forEach(cp -> frequency.merge(new String(Character.toChars(cp)), (long) count, Long::sum));
            }
        });
        long total = frequency.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Double> idf = new HashMap<>();
        frequency.forEach((term, count) -> {
            double share = count / (double) total;
            idf.put(term, -Math.log(-Math.expm1(ZH_DOC_CHARS * Math.log1p(-share))));
        });
        return table("# Chinese idf = -ln(1 - (1 - p)^" + ZH_DOC_CHARS + "), p = a Han character's share of the " + total
                + " characters\n# of the words of HanLP's core (mini) dictionary, weighted by their frequency.\n", idf);
    }

    /** The terms of idf at most ln RAREST, the MAX_TERMS commonest if more, sorted by term. */
    private static String table(String header, Map<String, Double> idf) {
        List<Map.Entry<String, Double>> kept = new ArrayList<>(idf.entrySet());
        kept.removeIf(e -> e.getValue() > Math.log(RAREST));
        kept.sort(Map.Entry.<String, Double>comparingByValue().thenComparing(Map.Entry.comparingByKey()));
        TreeMap<String, Double> sorted = new TreeMap<>();
        kept.subList(0, Math.min(MAX_TERMS, kept.size())).forEach(e -> sorted.put(e.getKey(), e.getValue()));
        StringBuilder b = new StringBuilder(header).append("# Terms in fewer than 1 document in ").append(RAREST)
                .append(" are left out. Made by loadtest/quality/make-idf.sh.\n");
        sorted.forEach((term, value) -> b.append(term).append('\t').append(String.format(Locale.ROOT, "%.3f", value)).append('\n'));
        return b.toString();
    }

    /** A file's text (gunzipped), or null if it is not UTF-8 text. */
    private static String text(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (file.getFileName().toString().endsWith(".gz")) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
                bytes = in.readAllBytes();
            } catch (IOException notGzip) {
                return null;
            }
        }
        for (byte b : bytes) {
            if (b == 0) {
                return null;
            }
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
            return text.length() > MAX_DOC_CHARS ? text.substring(0, MAX_DOC_CHARS) : text;
        } catch (CharacterCodingException notUtf8) {
            return null;
        }
    }

    interface WordVisitor {
        void visit(String word, int frequency);
    }

    /**
     * Every word of HanLP's core dictionary with its total frequency. The double-array trie has
     * no key iterator, so its arrays are walked: the child of the state with base b by character
     * c sits at b + c + 1 with check b, and a state b is a word's end when check[b] = b and
     * base[b] = -(value index + 1).
     */
    static void forEachWord(WordVisitor visitor) {
        DoubleArrayTrie<CoreDictionary.Attribute> trie = CoreDictionary.trie;
        int[] base = trie.getBase();
        int[] check = trie.getCheck();
        Map<Integer, List<Integer>> children = new HashMap<>();
        for (int p = 1; p < check.length; p++) {
            if (check[p] != 0 && p != check[p]) {
                children.computeIfAbsent(check[p], k -> new ArrayList<>()).add(p);
            }
        }
        Deque<Map.Entry<Integer, String>> stack = new ArrayDeque<>();
        stack.push(Map.entry(base[0], ""));
        while (!stack.isEmpty()) {
            Map.Entry<Integer, String> state = stack.pop();
            int b = state.getKey();
            if (b >= 0 && b < check.length && check[b] == b && base[b] < 0) {
                visitor.visit(state.getValue(), trie.getValueAt(-base[b] - 1).totalFrequency);
            }
            for (int p : children.getOrDefault(b, List.of())) {
                stack.push(Map.entry(base[p], state.getValue() + (char) (p - b - 1)));
            }
        }
    }
}
