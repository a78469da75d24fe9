package io.simdex.client.cli;

import io.simdex.client.SimdexClient;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "insert",
        description = "Store one document; an existing id moves to the new fingerprint.")
final class InsertCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Option(names = "--id", required = true, paramLabel = "ID", description = "Document id.")
    String id;

    @ArgGroup(exclusive = true, multiplicity = "1")
    ContentGroup content;

    @Override
    int execute(SimdexClient client) {
        long inserted = client.insert(collection.name, List.of(content.doc(id)));
        if (json()) {
            printJson(Json.of("inserted", inserted));
        } else {
            out().printf("inserted %d document(s) into %s%n", inserted, collection.name);
        }
        return 0;
    }
}
