package io.simdex.server;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.NodeStatus;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.SetEpochRequest;
import io.simdex.proto.v1.ShardBucketRequest;
import io.simdex.proto.v1.ShardContentRequest;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardProbeRequest;
import io.simdex.proto.v1.ShardProbeResponse;
import io.simdex.proto.v1.ShardResolveRequest;
import io.simdex.proto.v1.ShardTextsRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The epoch fence and the read gate, over loopback gRPC. */
class NodeStateServiceTest {
    private static final long FP = 0x0123_4567_89AB_CDEFL;

    @TempDir
    Path dir;
    private TestShard shard;

    @BeforeEach
    void start() {
        shard = new TestShard(dir, new NodeState("node-2", 6, true));
    }

    @AfterEach
    void stop() throws InterruptedException {
        shard.close();
    }

    @Test
    void staleEpochHeader_failedPrecondition_namingBothEpochs() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> shard.control("5").status(NodeStatusRequest.getDefaultInstance()));
        assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
        assertEquals("stale placement epoch 5, node node-2 is at 6", e.getStatus().getDescription());
        StatusRuntimeException write = assertThrows(StatusRuntimeException.class, () -> shard.stub("0").bucketAdd(add()));
        assertEquals(Status.Code.FAILED_PRECONDITION, write.getStatus().getCode());
        assertEquals(0, probe(shard.stub()).getMatches(0).getFingerprintsCount(), "the refused write did not happen");
    }

    @Test
    void equalNewerOrAbsentEpochHeader_passes() {
        assertEquals(6, shard.control("6").status(NodeStatusRequest.getDefaultInstance()).getEpoch());
        assertEquals(1, shard.stub("7").bucketAdd(add()).getChanged());
        assertEquals(1, probe(shard.stub()).getMatches(0).getFingerprintsCount());
        assertEquals(6, shard.control().status(NodeStatusRequest.getDefaultInstance()).getEpoch(), "a newer header does not raise the epoch");
    }

    @Test
    void malformedEpochHeader_invalidArgument() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> shard.control("six").status(NodeStatusRequest.getDefaultInstance()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    }

    @Test
    void setEpoch_raises_neverLowers_andFencesOlderCalls() {
        long before = System.currentTimeMillis();
        NodeStatus raised = shard.control().setEpoch(SetEpochRequest.newBuilder().setEpoch(9).build());
        long after = System.currentTimeMillis();
        assertEquals(NodeStatus.newBuilder().setNodeId("node-2").setEpoch(9).setReadable(true).build(), raised.toBuilder().clearUnixMillis().build());
        assertTrue(raised.getUnixMillis() >= before && raised.getUnixMillis() <= after, "the node's clock: " + raised.getUnixMillis());
        assertEquals(9, shard.control().setEpoch(SetEpochRequest.newBuilder().setEpoch(3).build()).getEpoch());
        assertEquals(9, shard.state.epoch());
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> shard.control("8").status(NodeStatusRequest.getDefaultInstance()));
        assertEquals("stale placement epoch 8, node node-2 is at 9", e.getStatus().getDescription());
    }

    @Test
    void notReadable_readsUnavailable_writesApplied_thenReadableAnswers() {
        shard.state.readable(false);
        ShardGrpc.ShardBlockingStub stub = shard.stub();
        assertEquals(1, stub.bucketAdd(add()).getChanged(), "writes apply while catching up");
        assertCatchingUp(() -> probe(stub));
        assertCatchingUp(() -> stub.resolveIds(ShardResolveRequest.newBuilder().setCollection("c").addFingerprints(FP).addGenerations(0).build()));
        assertCatchingUp(() -> stub.getTexts(ShardTextsRequest.newBuilder().setCollection("c").addIds("x").addGenerations(0).build()));
        assertCatchingUp(() -> stub.lookupContent(ShardContentRequest.newBuilder().setCollection("c")
                .addContentHashes(ByteString.copyFrom(new byte[16])).addGenerations(0).build()));
        assertEquals(false, shard.control().status(NodeStatusRequest.getDefaultInstance()).getReadable());

        shard.state.readable(true);
        assertEquals(FP, probe(stub).getMatches(0).getFingerprints(0));
    }

    private static void assertCatchingUp(Executable read) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, read);
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
        assertEquals("node node-2 is catching up", e.getStatus().getDescription());
    }

    private static ShardBucketRequest add() {
        return ShardBucketRequest.newBuilder().setCollection("c").setTable(2).addFingerprints(FP).build();
    }

    private static ShardProbeResponse probe(ShardGrpc.ShardBlockingStub stub) {
        return stub.probe(ShardProbeRequest.newBuilder().setCollection("c").setTable(2).addFingerprints(FP).addGenerations(0).build());
    }
}
