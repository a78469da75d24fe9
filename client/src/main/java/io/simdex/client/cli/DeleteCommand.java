package io.simdex.client.cli;

import com.google.gson.JsonObject;
import io.simdex.client.DeleteCounts;
import io.simdex.client.SimdexClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;

@Command(name = "delete", description = "Delete documents by id; ids not stored are counted, not an error.")
final class DeleteCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Option(names = "--file", paramLabel = "FILE", description = "Read ids from FILE, one per line ('-' for standard input).")
    String file;

    @Parameters(paramLabel = "ID", arity = "0..*", description = "Ids to delete.")
    List<String> ids = new ArrayList<>();

    @Override
    int execute(SimdexClient client) throws Exception {
        List<String> all = new ArrayList<>(ids);
        if (file != null) {
            all.addAll(Lines.read(file));
        }
        if (all.isEmpty()) {
            throw new BadInputException("no ids: give them as arguments or with --file");
        }
        DeleteCounts counts = client.delete(collection.name, all);
        if (json()) {
            JsonObject o = new JsonObject();
            o.addProperty("deleted", counts.deleted());
            o.addProperty("notFound", counts.notFound());
            printJson(o);
        } else {
            out().printf("deleted %d document(s) from %s, %d not found%n", counts.deleted(), collection.name, counts.notFound());
        }
        return 0;
    }
}
