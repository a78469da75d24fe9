package io.simdex.client.cli;

import io.simdex.client.Doc;
import java.nio.file.Path;
import java.util.Locale;

/** The line formats {@code load} reads, each parsing one non-blank line into a document. */
enum InputFormat {
    /** One JSON object per line; see {@link JsonlLine}. */
    JSONL {
        @Override
        Doc parse(String line) {
            return JsonlLine.parse(line);
        }
    },
    /** {@code id<TAB>fingerprint-or-text}; see {@link TsvLine}. */
    TSV {
        @Override
        Doc parse(String line) {
            return TsvLine.parse(line);
        }
    };

    /**
     * The document on {@code line}.
     *
     * @throws IllegalArgumentException saying what is wrong with the line
     */
    abstract Doc parse(String line);

    /**
     * The format {@code file}'s extension names: .jsonl, .json, .ndjson are JSONL; .tsv and
     * .txt are TSV; anything else is null.
     */
    static InputFormat byExtension(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        int dot = name.lastIndexOf('.');
        return switch (dot < 0 ? "" : name.substring(dot + 1)) {
            case "jsonl", "json", "ndjson" -> JSONL;
            case "tsv", "txt" -> TSV;
            default -> null;
        };
    }
}
