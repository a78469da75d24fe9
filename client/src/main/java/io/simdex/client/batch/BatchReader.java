package io.simdex.client.batch;

import io.simdex.fingerprint.crawl.CanonicalUrl;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Path;

/**
 * Reads a JSONL file of {@link BatchLine}s into {@link BatchDocs}, line by line, handing texts
 * to {@link RemoteFingerprints} as it goes; only the batch in flight holds text, and each text
 * document keeps where its line starts ({@link BatchTexts} reads it again). Blank lines
 * are skipped; the first bad line stops the read with {@link BatchInputException}.
 */
final class BatchReader {

    private BatchReader() {
    }

    /**
     * Reads every document of {@code file} into {@code docs}.
     *
     * @param canonicalUrls each URL in its canonical form ({@link CanonicalUrl}); a line whose URL has none is bad
     * @param onLine        runs once per line read, blank lines included (progress)
     */
    static void read(Path file, BatchDocs docs, RemoteFingerprints texts, boolean canonicalUrls, Runnable onLine) throws IOException {
        long lineNo = 0;
        try (FileLines in = new FileLines(file)) {
            while (true) {
                String line;
                try {
                    line = in.next();
                } catch (CharacterCodingException e) {
                    throw new BatchInputException(file + ":" + (lineNo + 1) + ": not valid UTF-8");
                }
                if (line == null) {
                    break;
                }
                lineNo++;
                onLine.run();
                if (!line.isBlank()) {
                    add(parse(file, lineNo, line, canonicalUrls), in.lineStart(), docs, texts);
                }
            }
        }
        texts.finish();
    }

    /** Lines in {@code file} (a last line without '\n' counts), or -1 if it is not a regular file. */
    static long countLines(Path file) throws IOException {
        return io.simdex.client.cli.LineCounter.count(java.util.List.of(file));
    }

    private static BatchLine parse(Path file, long lineNo, String line, boolean canonicalUrls) throws BatchInputException {
        BatchLine parsed;
        try {
            parsed = BatchLine.parse(line);
        } catch (IllegalArgumentException e) {
            throw new BatchInputException(file + ":" + lineNo + ": " + e.getMessage());
        }
        if (!canonicalUrls || parsed.url() == null) {
            return parsed;
        }
        try {
            return parsed.withUrl(CanonicalUrl.of(parsed.url()));
        } catch (IllegalArgumentException e) {
            throw new BatchInputException(file + ":" + lineNo + ": url " + e.getMessage() + ": \"" + parsed.url() + "\"");
        }
    }

    private static void add(BatchLine line, long offset, BatchDocs docs, RemoteFingerprints texts) {
        int doc = docs.add(line.id(), line.fingerprint(), line.text() != null, offset, line.url(), line.fetchTime(), line.score());
        if (line.text() != null) {
            texts.add(doc, line.text());
        }
    }
}
