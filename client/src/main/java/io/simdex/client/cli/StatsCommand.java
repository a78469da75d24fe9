package io.simdex.client.cli;

import io.simdex.client.CollectionStats;
import io.simdex.client.SimdexClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "stats", description = "Print a collection's counts and sizes.")
final class StatsCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Override
    int execute(SimdexClient client) {
        CollectionStats s = client.stats(collection.name);
        if (json()) {
            printJson(Json.stats(s));
            return 0;
        }
        out().printf("collection:     %s%n", s.collection());
        out().printf("documents:      %d%n", s.documents());
        out().printf("fingerprints:   %d%n", s.fingerprints());
        out().printf("shards:         %d%n", s.shards());
        out().printf("bucket entries: %d%n", s.bucketEntries());
        out().printf("table bytes:    %d%n", s.tableBytes());
        out().printf("doc bytes:      %d%n", s.docBytes());
        return 0;
    }
}
