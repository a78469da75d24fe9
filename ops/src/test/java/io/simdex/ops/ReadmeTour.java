package io.simdex.ops;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command lines of README.md's "A short tour" section: every line of its indented code blocks,
 * without comment lines and trailing {@code # ...} comments, exactly as a reader would paste it.
 */
final class ReadmeTour {
    static final String SECTION = "## A short tour";
    static final String LAUNCHER = "ops/bin/simdex";

    /** Subcommand words right after the launcher: where {@code --target} can go. */
    private static final Pattern SUBCOMMAND = Pattern.compile(
            Pattern.quote(LAUNCHER) + "((?: [a-z][a-z-]*(?=\\s|$))+)");

    private ReadmeTour() {
    }

    /** The tour's command lines, in README order. */
    static List<String> commands(Path readme) throws IOException {
        List<String> lines = Files.readAllLines(readme);
        int start = lines.indexOf(SECTION);
        if (start < 0) {
            throw new AssertionError(readme + " has no line \"" + SECTION + "\"");
        }
        List<String> commands = new ArrayList<>();
        boolean afterBlank = false;
        boolean inBlock = false;
        for (String line : lines.subList(start + 1, lines.size())) {
            if (line.startsWith("## ")) {
                break;
            }
            // Markdown: an indented block starts after a blank line; blank lines do not end it.
            inBlock = line.startsWith("    ") && (inBlock || afterBlank);
            afterBlank = line.isBlank();
            String command = inBlock ? withoutComment(line).strip() : "";
            if (!command.isEmpty()) {
                commands.add(command);
            }
        }
        return commands;
    }

    /** The line up to its first {@code #} that follows white space outside quotes. */
    static String withoutComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    /**
     * The line with {@code --target TARGET} after each launcher call's subcommand words
     * ({@code ops/bin/simdex urls check --target TARGET --job ...}); a call without a subcommand
     * ({@code --help}) talks to no server and is left alone.
     */
    static String withTarget(String line, String target) {
        Matcher m = SUBCOMMAND.matcher(line);
        return m.replaceAll(r -> Matcher.quoteReplacement(r.group() + " --target " + target));
    }

    /** Shell words: white-space separated, single and double quotes grouping and removed. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (char c : line.toCharArray()) {
            if (quote != 0 && c == quote) {
                quote = 0;
            } else if (quote != 0) {
                word.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                word = word == null ? new StringBuilder() : word;
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                }
                word = null;
            } else {
                word = (word == null ? new StringBuilder() : word).append(c);
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unclosed quote in: " + line);
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }
}
