package io.simdex.loadtest.run;

import io.simdex.proto.v1.SimdexGrpc;
import picocli.CommandLine.Option;

/** What each call asks. */
public final class WorkloadOptions {
    /** The RPC a run drives. */
    public enum Method { query, dedup, insert, urls }

    @Option(names = "--method", defaultValue = "query", description = {"query, dedup, insert or urls (CheckUrls of a crawl job:",
            "--dup-fraction of its URLs seen before, the rest new) (default: ${DEFAULT-VALUE})."})
    public Method method;

    @Option(names = "--batch", defaultValue = "1", description = "Probes, documents or URLs per request, 1..10000 (default: ${DEFAULT-VALUE}).")
    public int batch;

    @Option(names = "--max-distance", defaultValue = "3", description = "Query and Dedup max_distance (default: ${DEFAULT-VALUE}).")
    public int maxDistance;

    @Option(names = "--probes", defaultValue = "planted",
            description = {"Query probes: planted (at 0..5 bits from the stored set of --seed/--stored),",
                    "random, or a probes.jsonl path from `gen` (default: ${DEFAULT-VALUE})."})
    public String probes;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the stored set, as given to `load`/`gen` (default: ${DEFAULT-VALUE}).")
    public long seed;

    @Option(names = "--stored", defaultValue = "1000000", description = "Size of the stored set planted probes refer to (default: ${DEFAULT-VALUE}).")
    public long stored;

    @Option(names = "--dup-fraction", defaultValue = "0.5",
            description = {"Dedup: share of documents planted within 3 of a stored one; urls: share of URLs from a pool every",
                    "request draws from; the rest are new (default: ${DEFAULT-VALUE})."})
    public double dupFraction;

    @Option(names = "--collection", defaultValue = "", description = "Collection (urls: the crawl job, empty: loadtest); empty means default.")
    public String collection;

    void validate() {
        if (batch < 1 || batch > 10_000) {
            throw new IllegalArgumentException("--batch must be 1..10000, was " + batch);
        }
        if (dupFraction < 0 || dupFraction > 1) {
            throw new IllegalArgumentException("--dup-fraction must be 0..1, was " + dupFraction);
        }
        if (stored < 1) {
            throw new IllegalArgumentException("--stored must be >= 1, was " + stored);
        }
    }

    /** The RPC's full name, as servers report handling times under it. */
    String fullMethodName() {
        return switch (method) {
            case query -> SimdexGrpc.getQueryMethod().getFullMethodName();
            case dedup -> SimdexGrpc.getDedupMethod().getFullMethodName();
            case insert -> SimdexGrpc.getInsertMethod().getFullMethodName();
            case urls -> SimdexGrpc.getCheckUrlsMethod().getFullMethodName();
        };
    }

    String describe() {
        return method + " x" + batch;
    }
}
