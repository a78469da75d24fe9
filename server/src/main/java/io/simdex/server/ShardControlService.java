package io.simdex.server;

import com.google.protobuf.ByteString;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.proto.v1.IntentRecord;
import io.simdex.proto.v1.IntentRecordList;
import io.simdex.proto.v1.IntentTokens;
import io.simdex.proto.v1.NodeStatus;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.PullProgress;
import io.simdex.proto.v1.PullRequest;
import io.simdex.proto.v1.SetEpochRequest;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.proto.v1.ShardCountResponse;
import io.simdex.server.tls.PeerCredentials;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import static io.simdex.server.Calls.answer;
import static io.simdex.server.Calls.invalid;
import static io.simdex.server.Calls.stream;

/**
 * The shard control plane over gRPC (shard.proto's {@code ShardControl}): partition exports,
 * pulls and drops for replication and moves, the placement epoch, the node's status, and the
 * Dedup intents pending on it (for a peer that caught up, {@link StaleIntents}). It
 * serves on the same port as {@link ShardService}, behind the same {@link EpochFence} on a
 * cluster node, and answers whether or not the node is readable.
 */
public final class ShardControlService extends ShardControlGrpc.ShardControlImplBase {
    /** SetEpoch waits this long for calls admitted under older epochs to finish. */
    private static final long DRAIN_MILLIS = 10_000;

    private final ShardNode node;
    private final NodeState state;
    private final PeerCredentials peers;
    private final java.time.Clock clock;

    /** A service for a node outside any cluster: always readable, epoch 0. */
    public ShardControlService(ShardNode node) {
        this(node, NodeState.standalone());
    }

    public ShardControlService(ShardNode node, NodeState state) {
        this(node, state, PeerCredentials.PLAINTEXT);
    }

    /** As above, pulling from peers with {@code peers}' credentials. */
    public ShardControlService(ShardNode node, NodeState state, PeerCredentials peers) {
        this(node, state, peers, java.time.Clock.systemUTC());
    }

    /** As above, telling the time of {@code clock} in Status (tests give nodes clocks that disagree). */
    public ShardControlService(ShardNode node, NodeState state, PeerCredentials peers, java.time.Clock clock) {
        this.node = node;
        this.state = state;
        this.peers = peers;
        this.clock = clock;
    }

    /** The service behind an {@link EpochFence} on {@code state}: what a cluster node registers, beside ShardService's. */
    public static ServerServiceDefinition withFence(ShardNode node, NodeState state) {
        return withFence(node, state, PeerCredentials.PLAINTEXT);
    }

    /** As above, pulling from peers with {@code peers}' credentials. */
    public static ServerServiceDefinition withFence(ShardNode node, NodeState state, PeerCredentials peers) {
        return EpochFence.around(new ShardControlService(node, state, peers), state);
    }

    @Override
    public void exportPartitions(PartitionsRequest req, StreamObserver<ExportChunk> out) {
        ServerCallStreamObserver<ExportChunk> call = (ServerCallStreamObserver<ExportChunk>) out;
        stream(out, () -> {
            PartitionSet partitions = partitions(req.getPartitionsList());
            PartitionExport.run(node, partitions, chunk -> {
                awaitReady(call);
                call.onNext(chunk);
            });
        });
    }

    /**
     * Waits until the client can take another chunk, so an export never piles up in memory. Polls:
     * the call's onReady callback runs on the call's serialized executor, behind this handler.
     */
    private static void awaitReady(ServerCallStreamObserver<?> call) {
        while (!call.isReady()) {
            if (call.isCancelled()) {
                throw Status.CANCELLED.withDescription("export cancelled by the client").asRuntimeException();
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @Override
    public void pullPartitions(PullRequest req, StreamObserver<PullProgress> out) {
        stream(out, () -> {
            if (req.getSource().isBlank()) {
                throw invalid("source is empty: give the peer's host:port");
            }
            PartitionSet partitions = partitions(req.getPartitionsList());
            long records;
            try {
                records = new PartitionPuller(node, peers).pull(req.getSource(), partitions,
                        sofar -> out.onNext(PullProgress.newBuilder().setRecords(sofar).build()));
            } catch (StatusRuntimeException e) {
                throw Status.fromThrowable(e).augmentDescription("pulling from " + req.getSource()).asRuntimeException();
            }
            out.onNext(PullProgress.newBuilder().setRecords(records).setDone(true).build());
        });
    }

    @Override
    public void dropPartitions(PartitionsRequest req, StreamObserver<ShardCountResponse> out) {
        answer(out, () -> {
            long dropped = node.dropPartitions(partitions(req.getPartitionsList()));
            node.awaitDurable();
            return ShardCountResponse.newBuilder().setChanged(dropped).build();
        });
    }

    @Override
    public void setEpoch(SetEpochRequest req, StreamObserver<NodeStatus> out) {
        answer(out, () -> {
            try {
                if (!state.raiseEpochAndDrain(req.getEpoch(), DRAIN_MILLIS)) {
                    throw Status.DEADLINE_EXCEEDED.withDescription("calls routed by an older placement map still running after "
                            + DRAIN_MILLIS + " ms").asRuntimeException();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Status.CANCELLED.withDescription("interrupted").asRuntimeException();
            }
            return status();
        });
    }

    @Override
    public void status(NodeStatusRequest req, StreamObserver<NodeStatus> out) {
        answer(out, this::status);
    }

    @Override
    public void pendingIntents(IntentTokens req, StreamObserver<IntentTokens> out) {
        answer(out, () -> IntentTokens.newBuilder()
                .addAllTokens(Arrays.stream(node.pendingIntents(req.getTokensList().stream().mapToLong(Long::longValue).toArray()))
                        .boxed().toList()).build());
    }

    @Override
    public void intentRecords(IntentTokens req, StreamObserver<IntentRecordList> out) {
        answer(out, () -> {
            IntentRecordList.Builder list = IntentRecordList.newBuilder();
            for (IntentLog.Entry e : node.intentRecords(req.getTokensList().stream().mapToLong(Long::longValue).toArray())) {
                list.addIntents(IntentRecord.newBuilder().setToken(e.intent().token()).setStamp(e.intent().stamp())
                        .setDocs(ByteString.copyFrom(e.intent().docs()))
                        .addAllLockKeys(Arrays.stream(e.keys()).boxed().toList()));
            }
            return list.build();
        });
    }

    private NodeStatus status() {
        return NodeStatus.newBuilder().setNodeId(state.nodeId()).setEpoch(state.epoch()).setReadable(state.readable())
                .setUnixMillis(clock.millis()).build();
    }

    private static PartitionSet partitions(List<Integer> partitions) {
        try {
            return PartitionSet.of(partitions);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }
}
