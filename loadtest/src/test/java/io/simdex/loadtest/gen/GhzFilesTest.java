package io.simdex.loadtest.gen;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.CheckUrlsResponse;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.EmbeddedSimdex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ghz cannot run here, so its inputs are checked statically: the data files parse as the API's
 * request messages under the protobuf JSON mapping, and the configs use only keys of ghz's
 * config file format (runner.Config's JSON tags) and name real methods and files.
 */
class GhzFilesTest {
    /** The keys of ghz's --config JSON format (github.com/bojand/ghz runner/config.go). */
    private static final Set<String> GHZ_KEYS = Set.of("proto", "protoset", "call", "cacert", "cert", "key", "skipTLS",
            "skipFirst", "cname", "authority", "insecure", "total", "async", "concurrency", "concurrency-schedule",
            "concurrency-start", "concurrency-end", "concurrency-step", "concurrency-step-duration",
            "concurrency-max-duration", "connections", "rps", "duration", "duration-stop", "max-duration", "timeout",
            "data", "data-file", "binary-file", "metadata", "metadata-file", "stream-interval", "output", "format",
            "connect-timeout", "keepalive", "cpus", "import-paths", "name", "tags", "reflect-metadata", "debug", "host",
            "enable-compression", "load-schedule", "load-start", "load-end", "load-step", "load-step-duration",
            "load-max-duration");

    /** Data file each RPC's generated requests are in, and the message they must parse as. */
    private static final Map<String, Supplier<Message.Builder>> MESSAGES = Map.of(
            "query-unary.json", QueryRequest::newBuilder,
            "query-batch.json", QueryRequest::newBuilder,
            "dedup.json", DedupRequest::newBuilder,
            "insert.json", InsertRequest::newBuilder,
            "bulkload.json", BulkLoadRequest::newBuilder,
            "dedup-texts.json", DedupRequest::newBuilder,
            "check-urls.json", CheckUrlsRequest::newBuilder);

    @TempDir
    Path dir;

    @Test
    void gen_everyGhzDataElement_parsesAsItsRequestMessage() throws IOException {
        assertEquals(0, new CommandLine(new GenCommand()).execute("--out", dir.toString(), "--count", "50", "--probes", "6",
                "--texts", "2", "--ghz-requests", "4", "--ghz-batches", "2", "--ghz-batch", "5"));
        for (Map.Entry<String, Supplier<Message.Builder>> e : MESSAGES.entrySet()) {
            JsonArray messages = JsonParser.parseString(Files.readString(dir.resolve("ghz").resolve(e.getKey()))).getAsJsonArray();
            assertTrue(messages.size() > 0, e.getKey());
            for (JsonElement m : messages) {
                Message.Builder b = e.getValue().get();
                JsonFormat.parser().merge(m.toString(), b); // throws on an unknown field or a bad value
                assertTrue(b.build().getSerializedSize() > 0, e.getKey());
            }
        }
    }

    /** What the text Dedup and URL files say of their requests holds on a server: odd texts duplicates, even URLs seen again. */
    @Test
    void gen_textDedupsAndUrlChecks_decideAsDescribed() throws IOException {
        assertEquals(0, new CommandLine(new GenCommand()).execute("--out", dir.toString(), "--count", "50", "--probes", "1",
                "--texts", "1", "--ghz-batches", "2", "--ghz-batch", "10", "--ghz-texts", "8"));
        Path ghz = dir.resolve("ghz");
        try (EmbeddedSimdex simdex = EmbeddedSimdex.start(dir.resolve("server"), 1, "127.0.0.1", 0, 10_000)) {
            ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", simdex.port()).usePlaintext().build();
            SimdexGrpc.SimdexBlockingStub stub = SimdexGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
            DedupRequest request = element(ghz.resolve("dedup-texts.json"), 0, DedupRequest.newBuilder()).build();
            for (int pass = 0; pass < 2; pass++) { // ghz cycles the array: the second pass is a replay
                DedupResponse texts = stub.dedup(request);
                assertEquals(8, texts.getResultsCount());
                for (int t = 0; t < 8; t++) {
                    assertEquals(t % 2 == 0, texts.getResults(t).getInserted(), "pass " + pass + ", text " + t);
                }
            }
            CheckUrlsResponse first = stub.checkUrls(element(ghz.resolve("check-urls.json"), 0, CheckUrlsRequest.newBuilder()).build());
            CheckUrlsResponse second = stub.checkUrls(element(ghz.resolve("check-urls.json"), 1, CheckUrlsRequest.newBuilder()).build());
            assertEquals(10, first.getNewCount());
            assertEquals(5, second.getNewCount(), "the even URLs were seen in the first request");
            channel.shutdownNow();
        }
    }

    private static <B extends Message.Builder> B element(Path file, int index, B builder) throws IOException {
        JsonFormat.parser().merge(JsonParser.parseString(Files.readString(file)).getAsJsonArray().get(index).toString(), builder);
        return builder;
    }

    @Test
    void configs_useOnlyGhzKeys_nameRealMethodsAndGeneratedDataFiles() throws IOException {
        Set<String> methods = SimdexGrpc.bindService(new SimdexGrpc.SimdexImplBase() { }).getMethods().stream()
                .map(ServerMethodDefinition::getMethodDescriptor).map(MethodDescriptor::getFullMethodName)
                .collect(Collectors.toSet());
        Path repo = Path.of("").toAbsolutePath().getParent();
        try (Stream<Path> configs = Files.list(Path.of("ghz"))) {
            for (Path config : configs.filter(p -> p.toString().endsWith(".json")).toList()) {
                JsonObject c = JsonParser.parseString(Files.readString(config)).getAsJsonObject();
                for (String key : c.keySet()) {
                    assertTrue(GHZ_KEYS.contains(key), config + ": not a ghz config key: " + key);
                }
                assertTrue(methods.contains(c.get("call").getAsString()), config + ": no such method " + c.get("call"));
                assertTrue(Files.exists(repo.resolve(c.get("proto").getAsString())), config + ": proto not found");
                String data = c.get("data-file").getAsString();
                assertTrue(data.startsWith("loadtest/target/data/ghz/"), config + ": " + data);
                assertTrue(MESSAGES.containsKey(Path.of(data).getFileName().toString()), config + ": gen writes no " + data);
                assertTrue(c.get("insecure").getAsBoolean(), config + ": simdex serves plaintext");
            }
        }
    }
}
