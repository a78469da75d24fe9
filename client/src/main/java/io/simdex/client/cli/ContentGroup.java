package io.simdex.client.cli;

import io.simdex.client.Doc;
import io.simdex.client.Probe;
import picocli.CommandLine.Option;

/** {@code --fingerprint FP | --text TEXT}: one document's or probe's content, used in an exclusive group. */
final class ContentGroup {
    @Option(names = "--fingerprint", paramLabel = "FP", required = true, converter = FingerprintConverter.class,
            description = "Fingerprint: 16 hex digits, 0x-prefixed hex, or an unsigned decimal.")
    Long fingerprint;

    @Option(names = "--text", paramLabel = "TEXT", required = true,
            description = "Text for the server to fingerprint.")
    String text;

    Doc doc(String id) {
        return new Doc(id, fingerprint, text);
    }

    Probe probe() {
        return new Probe(fingerprint, text);
    }
}
