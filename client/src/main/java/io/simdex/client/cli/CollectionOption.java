package io.simdex.client.cli;

import picocli.CommandLine.Option;

/** The {@code --collection} option of commands that work inside one collection. */
final class CollectionOption {
    @Option(names = {"-c", "--collection"}, paramLabel = "NAME", defaultValue = "default",
            description = "Collection to use (default: ${DEFAULT-VALUE}).")
    String name;
}
