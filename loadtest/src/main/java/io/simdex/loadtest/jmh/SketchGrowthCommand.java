package io.simdex.loadtest.jmh;

import io.simdex.loadtest.quality.ManSentences;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResult;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.index.SketchReads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;

/**
 * How the verification work of a text probe grows with the store on real text: the embedded
 * default's default collection is filled with the English prose sentences of this machine's man
 * pages in steps, and after each step a fixed set of other sentences is queried, one text a
 * call; the kept sketches read per probe ({@link SketchReads}) are printed. Random fingerprints
 * would keep that near zero at any size; real sentences share their words and letter pairs, so
 * their candidates grow with the store.
 */
@Command(name = "sketch-growth", mixinStandardHelpOptions = true,
        description = "Sketch reads per text probe as a store of man-page sentences grows.")
public final class SketchGrowthCommand implements Callable<Integer> {
    @Option(names = "--man", description = "Man page root (default: ${DEFAULT-VALUE}).")
    Path man = Path.of("/usr/share/man");

    @Option(names = "--probes", description = "Sentences held out and queried after each step (default: ${DEFAULT-VALUE}).")
    int probes = 2_000;

    @Option(names = "--first", description = "Sentences stored by the first step; each next step doubles it (default: ${DEFAULT-VALUE}).")
    int first = 1_250;

    @Option(names = "--seed", description = "Shuffles the pages and the sentences (default: ${DEFAULT-VALUE}).")
    long seed = 20240607;

    @Override
    public Integer call() throws IOException {
        List<String> sentences = new ArrayList<>(ManSentences.english(man, Integer.MAX_VALUE, seed));
        Collections.shuffle(sentences, new Random(seed));
        if (sentences.size() < probes + first) {
            System.err.println("sketch-growth: " + sentences.size() + " sentences under " + man + ", fewer than --probes + --first");
            return 1;
        }
        List<String> queried = sentences.subList(0, probes);
        List<String> stored = sentences.subList(probes, sentences.size());
        System.out.printf("sketch-growth: %d sentences of %s: %d queried after each step, up to %d stored%n", sentences.size(), man, probes,
                stored.size());
        System.out.println("| stored | probes judged | sketch reads | reads per probe | probes with a match |");
        System.out.println("|---:|---:|---:|---:|---:|");
        try (InProcessSimdex simdex = InProcessSimdex.start("sketch-growth", stored.size())) {
            SimdexGrpc.SimdexBlockingStub stub = simdex.stub();
            int at = 0;
            for (int step = first; at < stored.size(); step *= 2) {
                int target = Math.min(step, stored.size());
                for (; at < target; at += 500) {
                    InsertRequest.Builder r = InsertRequest.newBuilder();
                    for (int i = at; i < Math.min(target, at + 500); i++) {
                        r.addDocuments(Document.newBuilder().setId("s" + i).setText(stored.get(i)));
                    }
                    stub.insert(r.build());
                }
                at = target;
                measure(stub, queried, target);
            }
        }
        return 0;
    }

    private static void measure(SimdexGrpc.SimdexBlockingStub stub, List<String> queried, int stored) {
        long probes = SketchReads.probes();
        long reads = SketchReads.reads();
        int matched = 0;
        for (String text : queried) {
            QueryResult r = stub.query(QueryRequest.newBuilder().addProbes(Probe.newBuilder().setText(text)).build()).getResults(0);
            matched += r.getMatchesCount() > 0 ? 1 : 0;
        }
        long p = SketchReads.probes() - probes;
        long n = SketchReads.reads() - reads;
        System.out.printf("| %,d | %,d | %,d | %.2f | %,d |%n", stored, p, n, (double) n / p, matched);
    }
}
