package io.simdex.server;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.ShardBucketRequest;
import io.simdex.proto.v1.ShardDropUrlJobRequest;
import io.simdex.proto.v1.ShardExpireRequest;
import io.simdex.proto.v1.ShardUrlsRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Names given at a node's own port, past any router: each becomes a directory, so a bad one must be refused there too. */
class NodePortNamesTest {
    @TempDir
    Path tmp;

    @Test
    void urlJobAndCollection_pathLikeNames_invalidArgumentAndNothingOutsideTheDataDir() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("node").resolve("data"));
        try (TestShard shard = new TestShard(data, NodeState.standalone())) {
            for (String name : List.of("../../victim", "..", "a/b", "urls.jobs", "", "x".repeat(65), "a\u0000b")) {
                refused(name, () -> shard.stub().dropUrlJob(ShardDropUrlJobRequest.newBuilder().setJob(name).build()));
                refused(name, () -> shard.stub().checkUrls(ShardUrlsRequest.newBuilder().setJob(name)
                        .addUrlHashes(ByteString.copyFrom(new byte[16])).setNowSeconds(1).setExpiresAtSeconds(100).build()));
                refused(name, () -> shard.stub().bucketAdd(ShardBucketRequest.newBuilder().setCollection(name).addFingerprints(7).build()));
                refused(name, () -> shard.stub().expireGenerations(ShardExpireRequest.newBuilder().setCollection(name).setMinGeneration(1).build()));
            }
            // Escapes would land beside the data directory or above it.
            assertEquals(List.of(data.getParent()), children(tmp));
            assertEquals(List.of(data), children(data.getParent()));
            List<Path> inside = tree(data);
            assertTrue(inside.stream().noneMatch(p -> p.getFileName().toString().contains("victim")), inside::toString);
            // A good name still works over the same port.
            assertEquals(0, shard.stub().dropUrlJob(ShardDropUrlJobRequest.newBuilder().setJob("victim").build()).getChanged());
        }
    }

    private static void refused(String name, Executable call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call, name);
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), () -> name + ": " + e.getStatus());
    }

    private static List<Path> children(Path dir) throws IOException {
        try (Stream<Path> paths = Files.list(dir)) {
            return paths.toList();
        }
    }

    private static List<Path> tree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.toList();
        }
    }
}
