package io.simdex.client.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.simdex.client.CollectionInfo;
import io.simdex.client.SimdexClient;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code collections list}, {@code collections create NAME} and {@code collections delete NAME}. */
@Command(name = "collections", description = "List, create or delete collections.",
        subcommands = {CollectionsCommand.ListCommand.class, CollectionsCommand.CreateCommand.class, CollectionsCommand.DeleteCommand.class})
final class CollectionsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand: list, create or delete");
    }

    @Command(name = "list", description = "List every collection.")
    static final class ListCommand extends ClientCommand {
        @Override
        int execute(SimdexClient client) {
            List<CollectionInfo> all = client.listCollections();
            if (json()) {
                JsonArray array = new JsonArray(all.size());
                all.forEach(c -> array.add(Json.collection(c)));
                JsonObject o = new JsonObject();
                o.add("collections", array);
                printJson(o);
            } else {
                all.forEach(c -> out().printf("%s\t%s\t%s%n", c.name(), c.createdAt(), SettingsOptions.describe(c.settings())));
            }
            return 0;
        }
    }

    @Command(name = "create",
            description = "Create a collection with its settings; succeeds if it exists already with the same settings.")
    static final class CreateCommand extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "1..64 characters of [A-Za-z0-9_-].")
        String name;

        @Mixin
        SettingsOptions settings;

        @Override
        int execute(SimdexClient client) throws BadInputException {
            boolean created = client.createCollection(name, settings.toProto());
            if (json()) {
                JsonObject o = new JsonObject();
                o.addProperty("name", name);
                o.addProperty("created", created);
                printJson(o);
            } else {
                out().println((created ? "created " : "exists ") + name);
            }
            return 0;
        }
    }

    @Command(name = "delete",
            description = "Delete a collection and drop its documents on every shard; succeeds if it does not exist.")
    static final class DeleteCommand extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The collection; not default.")
        String name;

        @Override
        int execute(SimdexClient client) {
            boolean existed = client.deleteCollection(name);
            if (json()) {
                JsonObject o = new JsonObject();
                o.addProperty("name", name);
                o.addProperty("existed", existed);
                printJson(o);
            } else {
                out().println((existed ? "deleted " : "absent ") + name);
            }
            return 0;
        }
    }
}
