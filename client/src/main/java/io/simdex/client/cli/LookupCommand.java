package io.simdex.client.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.simdex.client.Fingerprints;
import io.simdex.client.SimdexClient;
import io.simdex.client.Stored;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.List;

@Command(name = "lookup", description = "Print the fingerprint each id is stored with, or that it is not stored.")
final class LookupCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Mixin
    IdsInput ids;

    @Override
    int execute(SimdexClient client) throws Exception {
        List<String> all = ids.all();
        List<Stored> found = client.lookup(collection.name, all);
        if (json()) {
            JsonArray array = new JsonArray();
            for (Stored s : found) {
                JsonObject o = new JsonObject();
                o.addProperty("id", s.id());
                o.addProperty("found", s.found());
                if (s.found()) {
                    o.addProperty("fingerprint", Fingerprints.format(s.fingerprint().getAsLong()));
                }
                array.add(o);
            }
            JsonObject o = new JsonObject();
            o.add("ids", array);
            printJson(o);
        } else {
            for (Stored s : found) {
                out().println(s.found() ? s.id() + "\t" + Fingerprints.format(s.fingerprint().getAsLong()) : s.id() + "\tnot stored");
            }
        }
        return 0;
    }
}
