package io.simdex.client.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Ids given as arguments and read from {@code --file}, for the commands that take ids. */
final class IdsInput {
    @Option(names = "--file", paramLabel = "FILE", description = "Read ids from FILE, one per line ('-' for standard input).")
    String file;

    @Parameters(paramLabel = "ID", arity = "0..*", description = "Ids.")
    List<String> ids = new ArrayList<>();

    /** The arguments, then the file's lines; a usage of none is bad input. */
    List<String> all() throws IOException, BadInputException {
        List<String> all = new ArrayList<>(ids);
        if (file != null) {
            all.addAll(Lines.read(file));
        }
        if (all.isEmpty()) {
            throw new BadInputException("no ids: give them as arguments or with --file");
        }
        return all;
    }
}
