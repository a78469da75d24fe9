package io.simdex.loadtest.gen;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
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
            "bulkload.json", BulkLoadRequest::newBuilder);

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
