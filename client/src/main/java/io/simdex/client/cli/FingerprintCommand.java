package io.simdex.client.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.simdex.client.Fingerprints;
import io.simdex.client.SimdexClient;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "fingerprint",
        description = "Print the fingerprints the collection would compute for texts. Stores nothing.")
final class FingerprintCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Option(names = "--text", paramLabel = "TEXT", required = true, description = "Text to fingerprint; repeatable.")
    List<String> texts;

    @Override
    int execute(SimdexClient client) {
        List<Long> fingerprints = client.fingerprint(collection.name, texts);
        if (json()) {
            JsonArray array = new JsonArray(texts.size());
            for (int i = 0; i < texts.size(); i++) {
                JsonObject o = new JsonObject();
                o.addProperty("text", texts.get(i));
                o.addProperty("fingerprint", Fingerprints.format(fingerprints.get(i)));
                array.add(o);
            }
            JsonObject o = new JsonObject();
            o.add("fingerprints", array);
            printJson(o);
        } else {
            for (int i = 0; i < texts.size(); i++) {
                out().printf("%s\t%s%n", Fingerprints.format(fingerprints.get(i)), texts.get(i));
            }
        }
        return 0;
    }
}
