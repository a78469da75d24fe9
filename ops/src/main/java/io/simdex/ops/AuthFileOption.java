package io.simdex.ops;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The bearer-token flag of a process that serves the public API (the embedded default, a router). */
final class AuthFileOption {
    @Option(names = "--auth-file", paramLabel = "FILE",
            description = "Require bearer tokens: lines 'ROLE COLLECTION sha256:HEX' (read|write|admin, a name or *); read again when it changes."
                    + " Key: auth.file.")
    Path file;

    void addTo(ConfigOptions.Flags flags) {
        flags.put("auth.file", file, "--auth-file");
    }
}
