package io.simdex.client.cli;

import com.google.gson.JsonObject;
import io.simdex.client.DeleteCounts;
import io.simdex.client.SimdexClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;

@Command(name = "delete", description = "Delete documents by id; ids not stored are counted, not an error.")
final class DeleteCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Mixin
    IdsInput ids;

    @Override
    int execute(SimdexClient client) throws Exception {
        List<String> all = ids.all();
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
