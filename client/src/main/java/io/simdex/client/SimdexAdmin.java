package io.simdex.client;

import io.grpc.Channel;
import io.grpc.Context;
import io.simdex.proto.v1.AdminGrpc;
import io.simdex.proto.v1.AdminGrpc.AdminBlockingStub;
import io.simdex.proto.v1.MembersRequest;
import io.simdex.proto.v1.MembersResponse;
import io.simdex.proto.v1.MoveProgress;
import io.simdex.proto.v1.NodeRequest;
import io.simdex.proto.v1.PlacementRequest;
import io.simdex.proto.v1.PlacementResponse;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A client of the {@code simdex.v1.Admin} service that every router of a cluster serves:
 * members, the partition map, and adding, draining and removing nodes. Results are the proto
 * messages themselves ({@code admin.proto} documents every field).
 *
 * <p>Unary calls carry {@link ClientOptions#deadline()}; {@link #addNode} and
 * {@link #drainNode}, which last as long as the data takes to copy, carry
 * {@link ClientOptions#bulkLoadDeadline()} for the whole stream. RPC failures throw
 * {@link io.grpc.StatusRuntimeException}: UNIMPLEMENTED from a server without a cluster,
 * FAILED_PRECONDITION from {@link #removeNode} while the node still holds replicas. Thread-safe.
 */
public final class SimdexAdmin implements AutoCloseable {
    /** Null for a channel the caller owns. */
    private final OwnedChannel owned;
    private final AdminBlockingStub blocking;
    private final ClientOptions options;

    private SimdexAdmin(Channel channel, OwnedChannel owned, ClientOptions options) {
        if (channel == null || options == null) {
            throw new IllegalArgumentException("channel and options are required");
        }
        this.owned = owned;
        this.blocking = AdminGrpc.newBlockingStub(options.authorized(channel));
        this.options = options;
    }

    /** An admin client over a channel to {@code target} ("host:port" of a router), TLS as {@code options} say; {@link #close()} shuts it down. */
    public static SimdexAdmin connect(String target, ClientOptions options) {
        OwnedChannel ch = OwnedChannel.open(target, options);
        return new SimdexAdmin(ch.channel, ch, options);
    }

    /** An admin client over a channel the caller owns: {@link #close()} leaves it open. */
    public static SimdexAdmin over(Channel channel, ClientOptions options) {
        return new SimdexAdmin(channel, null, options);
    }

    /** Cluster members as Atomix sees them, with their placement share. */
    public MembersResponse members() {
        return unary().members(MembersRequest.getDefaultInstance());
    }

    /** The partition map; with {@code partitions}, also the replica list of each of the 4096 partitions. */
    public PlacementResponse placement(boolean partitions) {
        return unary().placement(PlacementRequest.newBuilder().setPartitions(partitions).build());
    }

    /**
     * Adds a running, joined node to the placement and waits while partitions move to it,
     * handing each progress message to {@code onProgress} as it arrives (on this thread).
     *
     * @return the last progress message ({@code done} is set when the move finished), or the
     *         default instance if the server ended the stream without sending any
     */
    public MoveProgress addNode(String node, Consumer<MoveProgress> onProgress) {
        return follow(stub -> stub.addNode(request(node)), onProgress);
    }

    /** Moves every replica off {@code node}; progress and result as for {@link #addNode}. */
    public MoveProgress drainNode(String node, Consumer<MoveProgress> onProgress) {
        return follow(stub -> stub.drainNode(request(node)), onProgress);
    }

    /** Removes a drained node from the placement; returns the new placement (summary only). */
    public PlacementResponse removeNode(String node) {
        return unary().removeNode(request(node));
    }

    /** Shuts down the channel if this client opened it, waiting up to 5 s for calls to finish. */
    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
    }

    /**
     * Reads a server stream to its end. The call runs in a cancellable context, so if
     * {@code onProgress} throws, the stream is cancelled rather than left open on the server.
     */
    private MoveProgress follow(Function<AdminBlockingStub, Iterator<MoveProgress>> call,
            Consumer<MoveProgress> onProgress) {
        Context.CancellableContext context = Context.current().withCancellation();
        Context previous = context.attach();
        try {
            Iterator<MoveProgress> stream = call.apply(blocking.withDeadlineAfter(
                    options.bulkLoadDeadline().toNanos(), TimeUnit.NANOSECONDS));
            MoveProgress last = MoveProgress.getDefaultInstance();
            while (stream.hasNext()) {
                last = stream.next();
                onProgress.accept(last);
            }
            return last;
        } finally {
            context.detach(previous);
            context.cancel(null);
        }
    }

    private AdminBlockingStub unary() {
        return blocking.withDeadlineAfter(options.deadline().toNanos(), TimeUnit.NANOSECONDS);
    }

    private static NodeRequest request(String node) {
        if (node == null || node.isBlank()) {
            throw new IllegalArgumentException("node id is required, was '" + node + "'");
        }
        return NodeRequest.newBuilder().setNode(node).build();
    }
}
