package io.simdex.client.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.simdex.client.Fingerprints;
import io.simdex.client.Match;
import io.simdex.client.Probe;
import io.simdex.client.ProbeMatches;
import io.simdex.client.SimdexClient;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "query",
        description = "Find stored documents near each probe (repeat --fingerprint/--text for several).")
final class QueryCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @ArgGroup(exclusive = true, multiplicity = "1..*")
    List<ContentGroup> probes;

    @Option(names = {"-k", "--max-distance"}, paramLabel = "K", defaultValue = "-1",
            description = "Largest Hamming distance, 0..3 (default: the collection's max_distance setting).")
    int maxDistance;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "0",
            description = "Most matches per probe, nearest first, 1..10000; 0 means the server's default, 100 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    int execute(SimdexClient client) {
        List<Probe> asked = probes.stream().map(ContentGroup::probe).toList();
        List<ProbeMatches> results = client.queryProbes(collection.name, asked, maxDistance, limit);
        if (json()) {
            printJson(toJson(asked, results));
            return 0;
        }
        for (int i = 0; i < results.size(); i++) {
            ProbeMatches r = results.get(i);
            String text = asked.get(i).hasFingerprint() ? "" : " text \"" + asked.get(i).text() + "\"";
            String cut = r.totalMatches() > r.matches().size() ? " of " + r.totalMatches() : "";
            out().printf("probe %d%s fingerprint %s: %d%s match(es)%n",
                    i + 1, text, Fingerprints.format(r.fingerprint()), r.matches().size(), cut);
            printMatches(out(), r.matches());
        }
        return 0;
    }

    /** One indented line per match: distance, fingerprint, id. */
    static void printMatches(PrintWriter out, List<Match> matches) {
        for (Match m : matches) {
            out.printf("  d=%d  %s  %s%s%n", m.distance(), Fingerprints.format(m.fingerprint()), m.id(),
                    m.similarity() >= 0 ? String.format("  jaccard=%.2f", m.similarity()) : "");
        }
    }

    private static JsonObject toJson(List<Probe> asked, List<ProbeMatches> results) {
        JsonArray array = new JsonArray(results.size());
        for (int i = 0; i < results.size(); i++) {
            JsonObject r = new JsonObject();
            if (!asked.get(i).hasFingerprint()) {
                r.addProperty("text", asked.get(i).text());
            }
            r.addProperty("fingerprint", Fingerprints.format(results.get(i).fingerprint()));
            r.add("matches", Json.matches(results.get(i).matches()));
            r.addProperty("total_matches", results.get(i).totalMatches());
            array.add(r);
        }
        JsonObject o = new JsonObject();
        o.add("results", array);
        return o;
    }
}
