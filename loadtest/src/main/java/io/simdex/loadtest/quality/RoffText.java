package io.simdex.loadtest.quality;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Plain text from a man page's roff source, by a small stripper rather than groff: the result
 * then depends only on the page, not on the groff version installed, which keeps the corpus
 * reproducible. It keeps what a reader sees as words (text lines, and the arguments of font
 * and heading macros, man and mdoc) and drops requests, comments, tables and escapes. Good
 * enough for a corpus; not a roff implementation.
 *
 * @param title  the {@code .TH}/{@code .Dt} title, or ""
 * @param source the {@code .TH} fourth argument (the package, "GNU coreutils 9.1"), or ""
 * @param text   the body, one output line per input text line, paragraphs separated by blank lines
 */
record RoffText(String title, String source, String text) {
    /** Macros whose arguments are visible text. */
    private static final Set<String> TEXT_MACROS = Set.of(
            "SH", "SS", "B", "I", "BI", "IB", "BR", "RB", "IR", "RI", "SM", "SB", "IP", "TQ", "UR", "MT",
            "Nm", "Nd", "Sh", "Ss", "Fl", "Ar", "Op", "Oo", "Pa", "Dq", "Sq", "Ql", "Em", "Sy", "Xr", "Cm",
            "Ic", "Va", "Fn", "Fa", "Ft", "Dv", "Er", "Ev", "Li", "Tn", "It", "Pq", "Aq", "Bq", "Qq", "Lk");
    private static final Set<String> PARAGRAPH_MACROS = Set.of("PP", "LP", "P", "Pp", "SH", "SS", "Sh", "Ss", "TP", "IP");
    private static final Pattern MDOC_MACRO_WORD = Pattern.compile("^[A-Z][a-z]{1,2}$");
    private static final Pattern QUOTED_ARGS = Pattern.compile("\"([^\"]*)\"|(\\S+)");
    private static final Map<String, String> SPECIAL_CHARS = Map.ofEntries(
            Map.entry("em", "—"), Map.entry("en", "–"), Map.entry("bu", "•"), Map.entry("co", "©"),
            Map.entry("aq", "'"), Map.entry("dq", "\""), Map.entry("lq", "“"), Map.entry("rq", "”"),
            Map.entry("oq", "‘"), Map.entry("cq", "’"), Map.entry("hy", "-"), Map.entry("mi", "-"),
            Map.entry("ti", "~"), Map.entry("ha", "^"), Map.entry("rs", "\\"), Map.entry("at", "@"),
            Map.entry("sh", "#"), Map.entry("Do", "$"), Map.entry("lB", "["), Map.entry("rB", "]"));
    // Escapes: \f font, \s size, \*x strings, \(xx and \[name] characters, \n registers,
    // \h \v \w \o motions with quoted arguments, then the one-character ones.
    private static final Pattern ESCAPE = Pattern.compile(
            "\\\\(?:f(?:\\[[^]]*]|\\(..|.)|s[-+]?(?:\\(..|\\[[^]]*]|\\d{1,2})|\\*(?:\\(..|\\[[^]]*]|.)"
                    + "|\\((..)|\\[([^]]*)]|n(?:\\(..|\\[[^]]*]|.)|[hvwoHSLlDbxXZ]'[^']*'|(.))");

    /** The text of {@code source}, or null when the page is only a {@code .so} link to another. */
    static RoffText parse(String source) {
        String title = "";
        String pkg = "";
        List<String> out = new ArrayList<>();
        boolean skipping = false;
        String skipUntil = null;
        for (String raw : source.split("\n", -1)) {
            String line = stripComment(raw);
            if (skipping) {
                if (line.startsWith(skipUntil)) {
                    skipping = false;
                }
                continue;
            }
            if (line.startsWith(".") || line.startsWith("'")) {
                List<String> args = arguments(line.substring(1).trim());
                if (args.isEmpty()) {
                    continue;
                }
                String macro = args.get(0);
                switch (macro) {
                    case "so" -> {
                        return null;
                    }
                    case "TH", "Dt" -> {
                        title = args.size() > 1 ? args.get(1) : "";
                        pkg = args.size() > 4 ? args.get(4) : "";
                    }
                    case "TS", "EQ", "PS", "de", "ig" -> {
                        skipping = true;
                        skipUntil = switch (macro) {
                            case "TS" -> ".TE";
                            case "EQ" -> ".EN";
                            case "PS" -> ".PE";
                            default -> "..";
                        };
                    }
                    default -> {
                        if (PARAGRAPH_MACROS.contains(macro)) {
                            out.add("");
                        }
                        if (TEXT_MACROS.contains(macro) && args.size() > 1) {
                            out.add(unescape(macroText(macro, args)));
                        }
                    }
                }
            } else {
                out.add(unescape(line));
            }
        }
        return new RoffText(unescape(title), unescape(pkg), String.join("\n", out).replaceAll("\n{3,}", "\n\n").strip());
    }

    private static String stripComment(String line) {
        int at = line.indexOf("\\\"");
        return at >= 0 ? line.substring(0, at) : line;
    }

    /** Arguments of a macro line after the control character: double-quoted or blank-separated. */
    private static List<String> arguments(String rest) {
        List<String> args = new ArrayList<>();
        Matcher m = QUOTED_ARGS.matcher(rest);
        while (m.find()) {
            args.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return args;
    }

    /** Font macros alternate fonts between arguments without spaces; mdoc nests macro names among the words. */
    private static String macroText(String macro, List<String> args) {
        List<String> words = new ArrayList<>();
        boolean mdoc = Character.isLowerCase(macro.charAt(macro.length() - 1)) && macro.length() == 2;
        for (String a : args.subList(1, args.size())) {
            if (!(mdoc && MDOC_MACRO_WORD.matcher(a).matches())) {
                words.add(a);
            }
        }
        boolean alternating = macro.length() == 2 && "BIR".indexOf(macro.charAt(0)) >= 0 && "BIR".indexOf(macro.charAt(1)) >= 0;
        return String.join(alternating ? "" : " ", words);
    }

    /** Replaces roff escapes by the characters they print, or nothing. */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        Matcher m = ESCAPE.matcher(s);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String replacement;
            if (m.group(1) != null) {
                replacement = SPECIAL_CHARS.getOrDefault(m.group(1), "");
            } else if (m.group(2) != null) {
                replacement = SPECIAL_CHARS.getOrDefault(m.group(2), "");
            } else if (m.group(3) != null) {
                replacement = switch (m.group(3)) {
                    case "-" -> "-";
                    case "e", "\\" -> "\\";
                    case " ", "~", "0" -> " ";
                    case "'" -> "'";
                    case "`" -> "`";
                    case "." -> ".";
                    default -> "";
                };
            } else {
                replacement = "";
            }
            m.appendReplacement(b, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(b);
        return b.toString();
    }
}
