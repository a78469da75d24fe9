package io.simdex.loadtest.quality;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * The documents of the corpus, read from text that ships on a Debian machine:
 * <ul>
 *   <li>English long: man pages in sections 1, 5, 7 and 8 of 250..1,500 words;</li>
 *   <li>English short: sentences of 8..40 words from those pages, at most 3 per page;</li>
 *   <li>Chinese long: the zh_CN man pages (package {@code manpages-zh}) with 300+ Han
 *       characters, cut at 3,000 characters;</li>
 *   <li>Chinese short: Tang and Song poems and Chinese fortunes (package {@code fortunes-zh})
 *       of 10..64 Han characters;</li>
 *   <li>English docs: README and NEWS files of {@code /usr/share/doc} of 250..1,500 words, at
 *       most two of one package: long texts written as prose and markup rather than roff, which
 *       no threshold is tuned on.</li>
 * </ul>
 * Files are listed in sorted order and shuffled with the seed, so the same machine always
 * gives the same corpus. English pages are drawn at most {@value #PAGES_PER_PACKAGE} of one
 * Debian package (the owners in {@code /var/lib/dpkg/info}; pages no package owns are drawn
 * freely): one package's generated pages would otherwise make the corpus (google-cloud-cli
 * ships 16,631 pages of "gcloud" commands, most of the 19,460 English pages on a machine that
 * has it), and its version would decide the English figures. Texts that are the same after dropping case, punctuation and spaces
 * are kept once (man pages repeat licences and whole pages under several names).
 */
final class Sources {
    private static final int LONG_MIN_WORDS = 250;
    private static final int LONG_MAX_WORDS = 1500;
    private static final int SHORT_MIN_WORDS = 8;
    private static final int SHORT_MAX_WORDS = 40;
    private static final int SENTENCES_PER_PAGE = 3;
    private static final int BOUNDARY_MIN_PAGE_WORDS = 120;
    private static final int BOUNDARY_MIN_WORDS = 35;
    private static final int BOUNDARY_MAX_WORDS = 80;
    private static final int BOUNDARY_MIN_HAN = 200;
    private static final int BOUNDARY_MAX_HAN = 450;
    private static final int ZH_LONG_MIN_HAN = 300;
    private static final int ZH_LONG_MAX_CHARS = 3000;
    private static final int ZH_SHORT_MIN_HAN = 10;
    private static final int ZH_SHORT_MAX_HAN = 64;
    private static final List<String> EN_SECTIONS = List.of("man1", "man5", "man7", "man8");
    static final int PAGES_PER_PACKAGE = 50;
    private static final Path DPKG_INFO = Path.of("/var/lib/dpkg/info");
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+(?=[A-Z])");
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z][A-Za-z'-]*[.,;:!?)]?|\\(?[A-Za-z]+");
    private static final Pattern ANSI = Pattern.compile("\u001b\\[[0-9;]*m");
    private static final Pattern VERSION_WORDS = Pattern.compile("\\S*\\d\\S*");

    private static final int DOCS_PER_PACKAGE = 2;
    private static final Pattern DOC_FILE = Pattern.compile("(?i)(README|NEWS)([.-][A-Za-z]+)*(\\.gz)?");

    private final Path manRoot;
    private final Path fortunes;
    private final Path docRoot;
    private final long seed;
    /** The owners of the man pages ({@link #owners(Path, Path)}), read once: every English kind draws through them. */
    private Map<String, String> manOwners;

    Sources(Path manRoot, Path fortunes, Path docRoot, long seed) {
        this.manRoot = manRoot;
        this.fortunes = fortunes;
        this.docRoot = docRoot;
        this.seed = seed;
    }

    List<Doc> englishLong(int count) {
        return take(englishPages(), count, page -> {
            int words = Language.wordCount(page.text());
            return words >= LONG_MIN_WORDS && words <= LONG_MAX_WORDS ? List.of(page) : List.of();
        });
    }

    List<Doc> englishShort(int count) {
        return take(englishPages(), count, page -> sentences(page));
    }

    /** README and NEWS files of the packages' documentation, of 250..1,500 words, at most {@value #DOCS_PER_PACKAGE} of one package. */
    List<Doc> englishDocs(int count) {
        Map<String, Integer> taken = new HashMap<>();
        return take(shuffled(docFiles(docRoot)).stream().map(this::docFile), count, doc -> {
            int words = Language.wordCount(doc.text());
            return words >= LONG_MIN_WORDS && words <= LONG_MAX_WORDS && taken.merge(doc.group(), 1, Integer::sum) <= DOCS_PER_PACKAGE
                    ? List.of(doc) : List.of();
        });
    }

    List<Doc> chineseLong(int count) {
        List<Path> files = shuffled(manFiles(manRoot.resolve("zh_CN"), null));
        return take(files.stream().map(this::manPage), count, page -> {
            if (page == null || Language.hanCount(page.text()) < ZH_LONG_MIN_HAN) {
                return List.of();
            }
            String text = page.text().length() <= ZH_LONG_MAX_CHARS ? page.text() : page.text().substring(0, ZH_LONG_MAX_CHARS);
            return List.of(new Doc(page.id(), text, page.group()));
        });
    }

    List<Doc> chineseShort(int count) {
        List<Doc> all = new ArrayList<>();
        for (String file : List.of("tang300", "song100", "chinese")) {
            all.addAll(fortuneEntries(fortunes.resolve(file)));
        }
        Collections.shuffle(all, new Random(seed));
        return take(all.stream(), count, d -> {
            int han = Language.hanCount(d.text());
            return han >= ZH_SHORT_MIN_HAN && han <= ZH_SHORT_MAX_HAN ? List.of(d) : List.of();
        });
    }

    /**
     * English texts near the short-text fingerprint's boundary of 300 letters: a run of 35 to 80
     * words (about 190 to 440 letters) from a random place of a man page of at least 120 words.
     */
    List<Doc> englishBoundary(int count) {
        return take(englishPages(), count, page -> {
            String[] words = page.text().trim().split("\\s+");
            if (words.length < BOUNDARY_MIN_PAGE_WORDS) {
                return List.of();
            }
            Random r = new Random(seed ^ page.id().hashCode());
            int n = BOUNDARY_MIN_WORDS + r.nextInt(BOUNDARY_MAX_WORDS - BOUNDARY_MIN_WORDS + 1);
            int from = r.nextInt(words.length - n + 1);
            return List.of(new Doc(page.id() + "#b", String.join(" ", Arrays.asList(words).subList(from, from + n)), page.group()));
        });
    }

    /**
     * Chinese texts near the boundary: a run of 200 to 450 Han characters (with what lies between
     * them) from a random place of a Chinese man page that has more.
     */
    List<Doc> chineseBoundary(int count) {
        List<Path> files = shuffled(manFiles(manRoot.resolve("zh_CN"), null));
        return take(files.stream().map(this::manPage), count, page -> {
            if (page == null || Language.hanCount(page.text()) < BOUNDARY_MAX_HAN + BOUNDARY_MIN_HAN) {
                return List.of();
            }
            Random r = new Random(seed ^ page.id().hashCode());
            int han = BOUNDARY_MIN_HAN + r.nextInt(BOUNDARY_MAX_HAN - BOUNDARY_MIN_HAN + 1);
            String text = page.text();
            int from = r.nextInt(text.length() / 2);
            int end = from;
            for (int seen = 0; end < text.length() && seen < han; end++) {
                seen += Character.UnicodeScript.of(text.charAt(end)) == Character.UnicodeScript.HAN ? 1 : 0;
            }
            String cut = text.substring(from, end);
            return Language.hanCount(cut) == han ? List.of(new Doc(page.id() + "#b", cut, page.group())) : List.of();
        });
    }

    /** Whether the Chinese sources are installed (packages manpages-zh and fortunes-zh). */
    boolean hasChinese() {
        return Files.isDirectory(manRoot.resolve("zh_CN")) && Files.isRegularFile(fortunes.resolve("tang300"));
    }

    /** How many source files each kind had, for the report. */
    String describe() {
        List<Path> english = manFiles(manRoot, EN_SECTIONS);
        Map<String, String> owners = manOwners();
        long packages = english.stream().map(f -> owners.get(f.toAbsolutePath().toString())).filter(Objects::nonNull).distinct().count();
        return english.size() + " English man pages of " + packages + " packages (" + capped(english, owners).size() + " drawn from, at most "
                + PAGES_PER_PACKAGE + " of one package), " + docFiles(docRoot).size() + " README and NEWS files of " + docRoot + ", "
                + (hasChinese() ? manFiles(manRoot.resolve("zh_CN"), null).size() + " Chinese man pages" : "no Chinese sources");
    }

    /** Parsed lazily: a stream, so that only the pages needed are read. */
    private Stream<Doc> englishPages() {
        return capped(shuffled(manFiles(manRoot, EN_SECTIONS)), manOwners()).stream().map(this::manPage);
    }

    private Map<String, String> manOwners() {
        if (manOwners == null) {
            manOwners = owners(DPKG_INFO, manRoot);
        }
        return manOwners;
    }

    /** The first {@link #PAGES_PER_PACKAGE} files of each package ({@code owners}: path -> package), in order, and every file no package owns. */
    static List<Path> capped(List<Path> files, Map<String, String> owners) {
        Map<String, Integer> taken = new HashMap<>();
        return files.stream().filter(f -> {
            String owner = owners.get(f.toAbsolutePath().toString());
            return owner == null || taken.merge(owner, 1, Integer::sum) <= PAGES_PER_PACKAGE;
        }).toList();
    }

    /** The Debian package that owns each file under {@code root}, from dpkg's lists in {@code dpkgInfo} (none there: empty). */
    static Map<String, String> owners(Path dpkgInfo, Path root) {
        Map<String, String> out = new HashMap<>();
        if (!Files.isDirectory(dpkgInfo)) {
            return out;
        }
        String prefix = root.toAbsolutePath() + "/";
        try (Stream<Path> lists = Files.list(dpkgInfo)) {
            for (Path list : lists.filter(f -> f.getFileName().toString().endsWith(".list")).sorted().toList()) {
                String name = list.getFileName().toString();
                String pkg = name.substring(0, name.length() - ".list".length()).replaceFirst(":.*", "");
                for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
                    if (line.startsWith(prefix)) {
                        out.putIfAbsent(line, pkg);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /**
     * Takes expanded documents in order until {@code count} distinct ones; {@code from} is
     * consumed only as far as needed.
     */
    private static List<Doc> take(Stream<Doc> from, int count, Function<Doc, List<Doc>> expand) {
        List<Doc> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Doc d : (Iterable<Doc>) from::iterator) {
            if (d == null) {
                continue;
            }
            for (Doc e : expand.apply(d)) {
                if (out.size() < count && seen.add(identity(e.text()))) {
                    out.add(e);
                }
            }
            if (out.size() >= count) {
                break;
            }
        }
        return out;
    }

    /** Lower case, letters and digits only: texts equal here are the same document. */
    static String identity(String text) {
        StringBuilder b = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().filter(Character::isLetterOrDigit).forEach(b::appendCodePoint);
        return b.toString();
    }

    private List<Doc> sentences(Doc page) {
        List<Doc> out = new ArrayList<>();
        for (String paragraph : page.text().split("\n\\s*\n")) {
            for (String s : SENTENCE_END.split(paragraph.replaceAll("\\s+", " ").strip())) {
                if (out.size() < SENTENCES_PER_PAGE && isPlainSentence(s)) {
                    out.add(new Doc(page.id() + "#" + out.size(), s, page.id()));
                }
            }
        }
        return out;
    }

    /** 8..40 words, mostly plain words, a capital first and a full stop last: prose, not an option list. */
    private static boolean isPlainSentence(String s) {
        String[] words = s.split(" ");
        if (words.length < SHORT_MIN_WORDS || words.length > SHORT_MAX_WORDS) {
            return false;
        }
        long plain = Stream.of(words).filter(w -> PLAIN_WORD.matcher(w).matches()).count();
        return plain >= 0.85 * words.length && Character.isUpperCase(s.charAt(0)) && ".!?".indexOf(s.charAt(s.length() - 1)) >= 0;
    }

    /** A documentation file as it is (markup included), grouped by its package's directory. */
    private Doc docFile(Path file) {
        String id = docRoot.relativize(file).toString();
        return new Doc("doc:" + id, read(file).replace("\r\n", "\n"), "doc:" + id.substring(0, id.indexOf('/')));
    }

    /** The README and NEWS files one directory below {@code root} (each package's own), sorted. */
    static List<Path> docFiles(Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> packages = Files.list(root)) {
            List<Path> out = new ArrayList<>();
            for (Path dir : packages.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> files = Files.list(dir)) {
                    files.filter(f -> Files.isRegularFile(f) && DOC_FILE.matcher(f.getFileName().toString()).matches()).sorted().forEach(out::add);
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Doc manPage(Path file) {
        RoffText page = RoffText.parse(read(file));
        if (page == null || page.text().isBlank()) {
            return null;
        }
        String group = VERSION_WORDS.matcher(page.source()).replaceAll("").strip();
        String id = manRoot.relativize(file).toString();
        return new Doc(id, page.text(), group.isEmpty() ? id.substring(0, id.indexOf('/')) : group);
    }

    /** Poems (title, author, body) and fortunes ("%"-separated, attribution lines "-- ..."). */
    private static List<Doc> fortuneEntries(Path file) {
        List<Doc> out = new ArrayList<>();
        String[] entries = ANSI.matcher(read(file)).replaceAll("").split("\n%\n");
        for (int i = 0; i < entries.length; i++) {
            List<String> body = new ArrayList<>();
            String group = file.getFileName().toString();
            for (String line : entries[i].split("\n")) {
                String l = line.strip();
                if (l.startsWith("作者")) {
                    group = "poet:" + l.replaceFirst("^作者[:：]", "").replaceAll("[（(].*", "");
                } else if (l.startsWith("--") || l.startsWith("——")) {
                    group = "source:" + l.replaceAll("^[-—\\s]+", "");
                } else if (!l.isEmpty() && !(l.contains("《") && body.isEmpty() && l.length() < 40 && l.endsWith("》"))
                        && !l.startsWith("题目")) {
                    body.add(l);
                }
            }
            out.add(new Doc(file.getFileName() + "#" + i, String.join("\n", body), group));
        }
        return out;
    }

    private static List<Path> manFiles(Path root, List<String> sections) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(root)) {
            List<Path> out = new ArrayList<>();
            for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                String name = dir.getFileName().toString();
                if (name.matches("man\\d\\w*") && (sections == null || sections.contains(name))) {
                    try (Stream<Path> files = Files.list(dir)) {
                        files.filter(Files::isRegularFile).sorted().forEach(out::add);
                    }
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Path> shuffled(List<Path> files) {
        List<Path> out = new ArrayList<>(files);
        Collections.shuffle(out, new Random(seed));
        return out;
    }

    private static String read(Path file) {
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
    }
}
