package io.simdex.client;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.AdminGrpc;
import io.simdex.proto.v1.Member;
import io.simdex.proto.v1.MembersRequest;
import io.simdex.proto.v1.MembersResponse;
import io.simdex.proto.v1.MoveProgress;
import io.simdex.proto.v1.NodeRequest;
import io.simdex.proto.v1.NodeShare;
import io.simdex.proto.v1.PartitionReplicas;
import io.simdex.proto.v1.PlacementRequest;
import io.simdex.proto.v1.PlacementResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A scripted Admin service for tests: a fixed two-node-and-a-router cluster, a placement of
 * three partitions, and move streams that send {@link #moves} and then end as
 * {@link #moveEnd} says: completed (null), with that error status, or held open until the
 * client cancels ({@link #HOLD_OPEN}, which counts down {@link #cancelled}).
 */
public final class FakeAdmin extends AdminGrpc.AdminImplBase {
    /** As {@link #moveEnd}: keep the stream open until the client cancels. */
    public static final Status HOLD_OPEN = Status.OK.withDescription("hold open");

    /** Every call, as "method node" ("members", "placement true", "add node-3", ...). */
    public final List<String> calls = new CopyOnWriteArrayList<>();
    /** The progress messages each AddNode or DrainNode stream sends. */
    public volatile List<MoveProgress> moves = List.of();
    /** How a move stream ends after its messages; null completes it normally. */
    public volatile Status moveEnd;
    /** Counted down when a held-open move stream is cancelled by the client. */
    public final CountDownLatch cancelled = new CountDownLatch(1);
    /** RemoveNode of this node fails with FAILED_PRECONDITION. */
    public volatile String holdingReplicas = "node-1";

    public static MembersResponse members() {
        return MembersResponse.newBuilder().setEpoch(7)
                .addMembers(Member.newBuilder().setId("node-1").setRole("node").setAddress("10.0.0.1:7511")
                        .setLive(true).setRaft(true).setReplicas(4096).setReadable(true).setState("active"))
                .addMembers(Member.newBuilder().setId("node-2").setRole("node").setAddress("10.0.0.2:7512")
                        .setLive(false).setRaft(true).setReplicas(2048).setIncoming(12).setState("draining"))
                .addMembers(Member.newBuilder().setId("router-1").setRole("router").setAddress("10.0.0.9:7411").setLive(true))
                .build();
    }

    public static PlacementResponse placement(boolean partitions) {
        PlacementResponse.Builder b = PlacementResponse.newBuilder().setEpoch(7).setReplication(2).setWriteQuorum(1).setMoving(1)
                .addNodes(NodeShare.newBuilder().setNode("node-1").setReplicas(3).setState("active"))
                .addNodes(NodeShare.newBuilder().setNode("node-2").setReplicas(1).setIncoming(1).setState("draining"));
        if (partitions) {
            b.addPartitions(PartitionReplicas.newBuilder().setPartition(0).addReplicas("node-1").addReplicas("node-2"))
                    .addPartitions(PartitionReplicas.newBuilder().setPartition(1).addReplicas("node-1"))
                    .addPartitions(PartitionReplicas.newBuilder().setPartition(2).addReplicas("node-1").addIncoming("node-2"));
        }
        return b.build();
    }

    /** Progress of a move of {@code total} partitions, {@code done} of them moved, 1000 records each. */
    public static MoveProgress progress(int done, int total, String stage) {
        return MoveProgress.newBuilder().setPartitionsTotal(total).setPartitionsDone(done)
                .setRecords(1000L * done).setEpoch(7 + done).setDone(done == total).setStage(stage).build();
    }

    @Override
    public void members(MembersRequest request, StreamObserver<MembersResponse> response) {
        calls.add("members");
        response.onNext(members());
        response.onCompleted();
    }

    @Override
    public void placement(PlacementRequest request, StreamObserver<PlacementResponse> response) {
        calls.add("placement " + request.getPartitions());
        response.onNext(placement(request.getPartitions()));
        response.onCompleted();
    }

    @Override
    public void addNode(NodeRequest request, StreamObserver<MoveProgress> response) {
        move("add " + request.getNode(), response);
    }

    @Override
    public void drainNode(NodeRequest request, StreamObserver<MoveProgress> response) {
        move("drain " + request.getNode(), response);
    }

    @Override
    public void removeNode(NodeRequest request, StreamObserver<PlacementResponse> response) {
        calls.add("remove " + request.getNode());
        if (request.getNode().equals(holdingReplicas)) {
            response.onError(Status.FAILED_PRECONDITION
                    .withDescription(request.getNode() + " still holds 4096 replicas; drain it first").asRuntimeException());
            return;
        }
        response.onNext(placement(false).toBuilder().setEpoch(9).build());
        response.onCompleted();
    }

    private void move(String call, StreamObserver<MoveProgress> response) {
        calls.add(call);
        ((ServerCallStreamObserver<MoveProgress>) response).setOnCancelHandler(cancelled::countDown);
        List<MoveProgress> toSend = new ArrayList<>(moves);
        toSend.forEach(response::onNext);
        Status end = moveEnd;
        if (end == HOLD_OPEN) {
            return;
        }
        if (end == null) {
            response.onCompleted();
        } else {
            response.onError(end.asRuntimeException());
        }
    }
}
