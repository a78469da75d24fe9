package io.simdex.client.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.protobuf.DoubleValue;
import com.google.protobuf.UInt32Value;
import com.google.protobuf.UInt64Value;
import io.simdex.client.CollectionInfo;
import io.simdex.client.SimdexClient;
import io.simdex.proto.v1.UpdateCollectionRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.List;

/** {@code collections list}, {@code collections create NAME}, {@code collections update NAME} and {@code collections delete NAME}. */
@Command(name = "collections", description = "List, create, update or delete collections.",
        subcommands = {CollectionsCommand.ListCommand.class, CollectionsCommand.CreateCommand.class, CollectionsCommand.UpdateCommand.class,
                CollectionsCommand.DeleteCommand.class})
final class CollectionsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand: list, create, update or delete");
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

    @Command(name = "update", description = {"Change how long a collection keeps documents and how it judges them; options not"
            + " given keep their value.",
            "Retention can be changed only on a collection created with one, and not below its generations."})
    static final class UpdateCommand extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The collection.")
        String name;

        @Option(names = "--max-distance", paramLabel = "K", description = "Distance Query and Dedup use when a request gives none, 0..3.")
        Integer maxDistance;

        @Option(names = "--retention", paramLabel = "DURATION", description = "Keep documents this long, e.g. 3d, 36h, 90m.")
        String retention;

        @Option(names = "--sketch-min-jaccard", paramLabel = "J", description = "Least estimated Jaccard of a duplicate, (0, 1].")
        Double sketchMinJaccard;

        @Option(names = "--short-text-min-jaccard", paramLabel = "J", description = "Least shingle Jaccard of a short duplicate, (0, 1].")
        Double shortTextMinJaccard;

        @Option(names = "--short-fingerprint-min-jaccard", paramLabel = "J",
                description = "Least estimated Jaccard of a short text's MinHash candidate, (0, 1].")
        Double shortFingerprintMinJaccard;

        @Override
        int execute(SimdexClient client) throws BadInputException {
            UpdateCollectionRequest.Builder b = UpdateCollectionRequest.newBuilder();
            if (maxDistance != null) {
                b.setMaxDistance(UInt32Value.of(maxDistance));
            }
            if (retention != null) {
                b.setRetentionSeconds(UInt64Value.of(SettingsOptions.seconds("--retention", retention)));
            }
            if (sketchMinJaccard != null) {
                b.setSketchMinJaccard(DoubleValue.of(sketchMinJaccard));
            }
            if (shortTextMinJaccard != null) {
                b.setShortTextMinJaccard(DoubleValue.of(shortTextMinJaccard));
            }
            if (shortFingerprintMinJaccard != null) {
                b.setShortFingerprintMinJaccard(DoubleValue.of(shortFingerprintMinJaccard));
            }
            if (b.build().equals(UpdateCollectionRequest.getDefaultInstance())) {
                throw new BadInputException("nothing to change: give --max-distance, --retention, --sketch-min-jaccard,"
                        + " --short-text-min-jaccard or --short-fingerprint-min-jaccard");
            }
            CollectionInfo c = client.updateCollection(name, b.build());
            if (json()) {
                printJson(Json.collection(c));
            } else {
                out().printf("%s\t%s\t%s%n", c.name(), c.createdAt(), SettingsOptions.describe(c.settings()));
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
