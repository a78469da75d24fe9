package io.simdex.router.cluster;

import io.atomix.cluster.Member;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.simdex.core.Partitions;
import io.simdex.proto.v1.AdminGrpc;
import io.simdex.proto.v1.MembersRequest;
import io.simdex.proto.v1.MembersResponse;
import io.simdex.proto.v1.MoveProgress;
import io.simdex.proto.v1.NodeRequest;
import io.simdex.proto.v1.NodeShare;
import io.simdex.proto.v1.NodeStatus;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.PartitionReplicas;
import io.simdex.proto.v1.PlacedNode;
import io.simdex.proto.v1.PlacementRequest;
import io.simdex.proto.v1.PlacementResponse;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** {@code simdex.v1.Admin} on a cluster router: members, placement, and moves (by {@link Rebalancer}). */
public final class AdminService extends AdminGrpc.AdminImplBase {
    private final AtomixMember member;
    private final PartitionMapStore store;
    private final ClusterView view;
    private final Rebalancer rebalancer;
    private final Set<String> raft;

    public AdminService(AtomixMember member, PartitionMapStore store, ClusterView view, Set<String> raft) {
        this.member = member;
        this.store = store;
        this.view = view;
        this.raft = raft;
        this.rebalancer = new Rebalancer(store, view, member::liveIds);
    }

    @Override
    public void members(MembersRequest req, StreamObserver<MembersResponse> out) {
        unary(out, () -> {
            PartitionMap map = store.current();
            Map<String, int[]> shares = map.shares();
            MembersResponse.Builder b = MembersResponse.newBuilder().setEpoch(map.epoch());
            for (Member m : member.members().stream().sorted(java.util.Comparator.comparing(x -> x.id().id())).toList()) {
                String id = m.id().id();
                String role = m.properties().getProperty(AtomixMember.ROLE, "");
                String address = m.properties().getProperty(AtomixMember.ADDRESS, "");
                boolean live = m.isActive() && m.isReachable();
                io.simdex.proto.v1.Member.Builder mb = io.simdex.proto.v1.Member.newBuilder().setId(id).setRole(role)
                        .setAddress(address).setLive(live).setRaft(raft.contains(id));
                if ("node".equals(role)) {
                    int i = map.indexOf(id);
                    int[] share = shares.getOrDefault(id, new int[2]);
                    mb.setReplicas(share[0]).setIncoming(share[1])
                            .setState(i < 0 ? "joined" : map.nodes().get(i).getDraining() ? "draining" : "active")
                            .setReadable(live && readable(address));
                }
                b.addMembers(mb);
            }
            return b.build();
        });
    }

    private boolean readable(String address) {
        try {
            NodeStatus s = view.node(address).control().withDeadlineAfter(1, TimeUnit.SECONDS)
                    .status(NodeStatusRequest.getDefaultInstance());
            return s.getReadable();
        } catch (StatusRuntimeException e) {
            return false;
        }
    }

    @Override
    public void placement(PlacementRequest req, StreamObserver<PlacementResponse> out) {
        unary(out, () -> placement(store.current(), req.getPartitions()));
    }

    static PlacementResponse placement(PartitionMap map, boolean partitions) {
        PlacementResponse.Builder b = PlacementResponse.newBuilder().setEpoch(map.epoch()).setReplication(map.replication())
                .setWriteQuorum(map.writeQuorum()).setMoving(map.moving());
        Map<String, int[]> shares = map.shares();
        for (PlacedNode n : map.nodes()) {
            int[] s = shares.get(n.getId());
            b.addNodes(NodeShare.newBuilder().setNode(n.getId()).setReplicas(s[0]).setIncoming(s[1])
                    .setState(n.getDraining() ? "draining" : "active"));
        }
        if (partitions) {
            for (int p = 0; p < Partitions.COUNT; p++) {
                PartitionReplicas.Builder pr = PartitionReplicas.newBuilder().setPartition(p);
                for (int r : map.replicas(p)) {
                    pr.addReplicas(map.nodes().get(r).getId());
                }
                for (int r : map.incoming(p)) {
                    pr.addIncoming(map.nodes().get(r).getId());
                }
                b.addPartitions(pr);
            }
        }
        return b.build();
    }

    @Override
    public void addNode(NodeRequest req, StreamObserver<MoveProgress> out) {
        streamed(out, progress -> {
            String id = nodeId(req);
            Member m = member.members().stream().filter(x -> x.id().id().equals(id)).findFirst().orElseThrow(() ->
                    Status.FAILED_PRECONDITION.withDescription("node '" + id + "' has not joined the cluster: start it first").asRuntimeException());
            if (!"node".equals(m.properties().getProperty(AtomixMember.ROLE)) || !m.isReachable()) {
                throw Status.FAILED_PRECONDITION.withDescription("member '" + id + "' is not a live shard node").asRuntimeException();
            }
            rebalancer.addNode(PlacedNode.newBuilder().setId(id).setAddress(m.properties().getProperty(AtomixMember.ADDRESS)).build(), progress);
        });
    }

    @Override
    public void drainNode(NodeRequest req, StreamObserver<MoveProgress> out) {
        streamed(out, progress -> rebalancer.drain(placed(nodeId(req)), progress));
    }

    @Override
    public void removeNode(NodeRequest req, StreamObserver<PlacementResponse> out) {
        unary(out, () -> {
            String id = placed(nodeId(req));
            try {
                return placement(rebalancer.remove(id), false);
            } catch (IllegalStateException e) {
                throw Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException();
            }
        });
    }

    private static String nodeId(NodeRequest req) {
        if (req.getNode().isBlank()) {
            throw Status.INVALID_ARGUMENT.withDescription("node is required").asRuntimeException();
        }
        return req.getNode();
    }

    private String placed(String id) {
        if (store.current().indexOf(id) < 0) {
            throw Status.NOT_FOUND.withDescription("node '" + id + "' is not in the partition map").asRuntimeException();
        }
        return id;
    }

    private static <T> void unary(StreamObserver<T> out, java.util.function.Supplier<T> call) {
        T value;
        try {
            value = call.get();
        } catch (RuntimeException e) {
            out.onError(asStatus(e));
            return;
        }
        out.onNext(value);
        out.onCompleted();
    }

    private static void streamed(StreamObserver<MoveProgress> out, Consumer<Consumer<MoveProgress>> body) {
        try {
            body.accept(out::onNext);
            out.onCompleted();
        } catch (RuntimeException e) {
            out.onError(asStatus(e));
        }
    }

    private static StatusRuntimeException asStatus(RuntimeException e) {
        if (e instanceof StatusRuntimeException s) {
            return s;
        }
        if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
            return Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException();
        }
        return Status.INTERNAL.withDescription(e.toString()).withCause(e).asRuntimeException();
    }
}
