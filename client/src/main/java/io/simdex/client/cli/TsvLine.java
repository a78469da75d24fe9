package io.simdex.client.cli;

import io.simdex.client.Doc;
import io.simdex.client.Fingerprints;

/**
 * One TSV line: {@code id<TAB>fingerprint-or-text}. The second column is a fingerprint when it
 * is exactly 16 hex digits (optionally {@code 0x}-prefixed), else text; text runs to the end of
 * the line, tabs included. A decimal number in the second column is text.
 */
final class TsvLine {
    private TsvLine() {
    }

    static Doc parse(String line) {
        int tab = line.indexOf('\t');
        if (tab < 0) {
            throw new IllegalArgumentException("expected id<TAB>fingerprint-or-text, found no tab");
        }
        String id = line.substring(0, tab);
        String content = line.substring(tab + 1);
        if (id.isEmpty()) {
            throw new IllegalArgumentException("empty id");
        }
        if (Fingerprints.isHex(content)) {
            return Doc.of(id, Fingerprints.parse(content));
        }
        if (content.isBlank()) {
            throw new IllegalArgumentException("empty fingerprint or text for id '" + id + "'");
        }
        return Doc.ofText(id, content);
    }
}
