package io.simdex.client.cli;

import io.simdex.client.DedupDecision;
import io.simdex.client.Fingerprints;
import io.simdex.client.SimdexClient;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "dedup",
        description = "Store a document only if nothing within the distance is stored; print the decision.")
final class DedupCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Option(names = "--id", required = true, paramLabel = "ID", description = "Document id.")
    String id;

    @ArgGroup(exclusive = true, multiplicity = "1")
    ContentGroup content;

    @Option(names = {"-k", "--max-distance"}, paramLabel = "K", defaultValue = "-1",
            description = "Largest Hamming distance that counts as a duplicate, 0..3 (default: the collection's max_distance setting).")
    int maxDistance;

    @Override
    int execute(SimdexClient client) {
        DedupDecision d = client.dedup(collection.name, List.of(content.doc(id)), maxDistance).get(0);
        if (json()) {
            printJson(Json.decision(d));
        } else if (d.inserted()) {
            out().printf("inserted %s %s%n", d.id(), Fingerprints.format(d.fingerprint()));
        } else {
            // The server returns at most its limit of them (100 by default), nearest first.
            String shown = d.totalMatches() > d.duplicates().size() ? ", " + d.duplicates().size() + " shown" : "";
            out().printf("duplicate %s %s of %d stored document(s)%s:%n",
                    d.id(), Fingerprints.format(d.fingerprint()), Math.max(d.totalMatches(), d.duplicates().size()), shown);
            QueryCommand.printMatches(out(), d.duplicates());
        }
        return 0;
    }
}
