package io.simdex.client.batch;

import com.google.gson.JsonObject;
import io.grpc.Status;
import io.simdex.client.ClientOptions;
import io.simdex.client.CollectionInfo;
import io.simdex.client.SimdexClient;
import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.client.cli.CredentialOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;

/**
 * {@code simdex dedup-batch FILE}: near-duplicates of a JSONL batch within itself and against
 * the index, one decision line per document; see {@link DedupBatch} and the package comment.
 */
@Command(name = "dedup-batch",
        description = {"Find near-duplicates in a JSONL batch, within the batch and against the index, and print"
                + " one decision per document, in input order.",
                "Input lines: {\"id\", \"text\" or \"fingerprint\", optional \"url\", \"fetch_time\", \"score\"}.",
                "Without --insert nothing is written.",
                "Texts are checked against the index, and stored, as texts, so the collection's text verification"
                        + " (sketches, short-text fingerprints) applies; within the batch they are compared by fingerprint"
                        + " within -k until --insert stores them through Dedup."})
public final class DedupBatchCommand implements Callable<Integer> {
    private static final int DEFAULT_MAX_DISTANCE = 3;
    private static final int MAX_PARALLEL = 64;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "JSONL input, one document per line.")
    Path input;

    @Option(names = "--target", paramLabel = "HOST:PORT", defaultValue = "localhost:7411",
            description = "Server or router address (default: ${DEFAULT-VALUE}).")
    String target;

    @Option(names = {"-c", "--collection"}, paramLabel = "NAME", defaultValue = "default",
            description = "Collection to check against and store into (default: ${DEFAULT-VALUE}).")
    String collection;

    @Option(names = {"-k", "--max-distance"}, paramLabel = "K",
            description = "Largest Hamming distance that counts as a duplicate, 0..3 (default: the collection's, 3 unless set).")
    Integer maxDistance;

    @Option(names = "--insert", description = "Store the kept documents (atomically, with Dedup).")
    boolean insert;

    @Option(names = "--canonical-urls", description = "Compare URLs by their canonical form, as urls check --canonical does (case,"
            + " default port, fragment, dot segments, escapes), in the same-URL rule and the shortest-URL tie-break; a line whose"
            + " url is not absolute (scheme://host...) stops the run.")
    boolean canonicalUrls;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
            description = "Texts, probes or documents per RPC, 1..10000 (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "4",
            description = "Fingerprint and Query calls in flight, 1..64 (default: ${DEFAULT-VALUE}).")
    int parallel;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
            description = "Write the decisions here instead of standard output (the summary then goes to standard output).")
    Path output;

    @Option(names = "--deadline", paramLabel = "SECONDS", description = "Deadline of each call (default: 30).")
    Double deadlineSeconds;

    @Mixin
    CredentialOptions credentials;

    @Option(names = "--no-progress", description = "Do not draw the progress bar (for scripts).")
    boolean noProgress;

    @Option(names = "--json", description = "Print the summary as JSON.")
    boolean json;

    private final BiFunction<String, ClientOptions, SimdexClient> clients;

    /** The command as {@code simdex} runs it: gRPC to {@code --target}, plaintext unless the TLS flags say otherwise. */
    public DedupBatchCommand() {
        this(SimdexClient::connect);
    }

    /** With another way to open the client: the seam tests use. */
    DedupBatchCommand(BiFunction<String, ClientOptions, SimdexClient> clients) {
        this.clients = clients;
    }

    @Override
    public Integer call() throws IOException {
        checkOptions();
        try (SimdexClient client = clients.apply(target, clientOptions())) {
            CollectionSettings settings = settingsOf(client);
            int k = maxDistance != null ? maxDistance
                    : settings.hasMaxDistance() ? settings.getMaxDistance().getValue() : DEFAULT_MAX_DISTANCE;
            DedupBatch run = new DedupBatch(collection, k, insert, batch, parallel, canonicalUrls);
            DedupBatch.Summary summary;
            try (Progress progress = noProgress ? Progress.NONE : new BarProgress()) {
                summary = output == null ? run.run(client, input, out(), progress) : runToFile(run, client, progress);
            }
            printSummary(summary, output == null ? spec.commandLine().getErr() : out());
            if (!insert && summary.fingerprintCalls() > 0 && verifiesTexts(settings)) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("dedup-batch: warning: collection '" + collection + "' verifies texts (sketches, short-text"
                        + " fingerprints): they were checked against the index so, but against each other by fingerprint"
                        + " within " + k + " bits only; --insert decides them through Dedup, as the server would.");
                err.flush();
            }
            return 0;
        }
    }

    private DedupBatch.Summary runToFile(DedupBatch run, SimdexClient client, Progress progress) throws IOException {
        try (Writer w = new BufferedWriter(Files.newBufferedWriter(output, StandardCharsets.UTF_8), 1 << 16)) {
            return run.run(client, input, w, progress);
        }
    }

    /** The collection's settings, as the server lists them (defaults filled in). */
    private CollectionSettings settingsOf(SimdexClient client) {
        for (CollectionInfo c : client.listCollections()) {
            if (c.name().equals(collection)) {
                return c.settings() != null ? c.settings() : CollectionSettings.getDefaultInstance();
            }
        }
        throw Status.NOT_FOUND.withDescription("no collection '" + collection + "'").asRuntimeException();
    }

    /**
     * Whether the server verifies the collection's texts beyond their fingerprints' distance,
     * which the batch's own comparisons (by fingerprint) do not.
     */
    private static boolean verifiesTexts(CollectionSettings s) {
        return s.hasShortText() || (s.hasSketch() && s.getSketch().getEnabled());
    }

    private void checkOptions() {
        if (maxDistance != null && (maxDistance < 0 || maxDistance > BlockTables.MAX_DISTANCE)) {
            throw usage("-k must be in 0..3, was " + maxDistance);
        }
        if (batch < 1 || batch > ClientOptions.SERVER_BATCH_LIMIT) {
            throw usage("--batch must be in 1..10000, was " + batch);
        }
        if (parallel < 1 || parallel > MAX_PARALLEL) {
            throw usage("--parallel must be in 1.." + MAX_PARALLEL + ", was " + parallel);
        }
        if (deadlineSeconds != null && (!(deadlineSeconds > 0) || deadlineSeconds.isInfinite())) {
            throw usage("--deadline must be a positive number of seconds, was " + deadlineSeconds);
        }
    }

    private ClientOptions clientOptions() {
        ClientOptions o = ClientOptions.DEFAULTS.withMaxBatch(ClientOptions.SERVER_BATCH_LIMIT);
        o = deadlineSeconds == null ? o : o.withDeadline(Duration.ofNanos(Math.round(deadlineSeconds * 1e9)));
        try {
            return credentials.applyTo(o);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private void printSummary(DedupBatch.Summary s, PrintWriter to) {
        if (json) {
            JsonObject o = new JsonObject();
            o.addProperty("documents", s.documents());
            for (Reason r : Reason.values()) {
                o.addProperty(r.wireName(), s.count(r));
            }
            o.addProperty("rounds", s.rounds());
            o.addProperty("fingerprintCalls", s.fingerprintCalls());
            o.addProperty("queryCalls", s.queryCalls());
            o.addProperty("dedupCalls", s.dedupCalls());
            o.addProperty("seconds", s.seconds());
            o.addProperty("docsPerSecond", s.docsPerSecond());
            to.println(o);
        } else {
            StringBuilder drops = new StringBuilder();
            for (Reason r : Reason.values()) {
                if (!r.keep() && s.count(r) > 0) {
                    drops.append(drops.length() == 0 ? "" : ", ").append(r.wireName()).append(' ').append(s.count(r));
                }
            }
            long kept = s.count(Reason.UNIQUE);
            to.printf(Locale.ROOT, "dedup-batch: %d documents in %.2f s (%.0f docs/s): %d keep%s, %d drop%s; "
                            + "%d round(s), %d Fingerprint, %d Query, %d Dedup call(s)%n",
                    s.documents(), s.seconds(), s.docsPerSecond(), kept, insert ? " (stored)" : "",
                    s.documents() - kept, drops.length() == 0 ? "" : " (" + drops + ")",
                    s.rounds(), s.fingerprintCalls(), s.queryCalls(), s.dedupCalls());
        }
        to.flush();
    }

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
