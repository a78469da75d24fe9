package io.simdex.server;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.server.tls.PeerCredentials;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.ShardControlGrpc;

import java.util.Arrays;
import java.util.Iterator;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Copies partitions from a peer into this node: streams the peer's ExportPartitions over a
 * channel of its own and applies each chunk ({@link ChunkApplier}), with tombstones registered
 * for the whole pull so that deletes made here meanwhile stay deleted ({@link ActivePulls}).
 * Writes made here meanwhile stay too. Pulling again is harmless: every apply is idempotent.
 */
public final class PartitionPuller {
    private final ShardNode node;
    private final PeerCredentials peers;

    /** A puller that reaches peers in plaintext. */
    public PartitionPuller(ShardNode node) {
        this(node, PeerCredentials.PLAINTEXT);
    }

    /** A puller that reaches peers with {@code peers}' credentials (mutual TLS in a cluster that has it). */
    public PartitionPuller(ShardNode node, PeerCredentials peers) {
        this.node = node;
        this.peers = peers;
    }

    /**
     * Pulls {@code partitions} from the ShardControl service at {@code source} ("host:port", with this puller's peer credentials),
     * calling {@code progress} with the records handled so far after every chunk; returns the
     * total. The current gRPC context's deadline and cancellation carry over to the export call.
     *
     * @throws IllegalArgumentException for an empty source, no partitions or one outside
     *         0..4095 (nothing is pulled), or a malformed chunk from the peer
     * @throws io.grpc.StatusRuntimeException when the export fails; what was applied stays
     */
    public long pull(String source, int[] partitions, LongConsumer progress) {
        if (source == null || source.isBlank()) {
            throw new IllegalArgumentException("source is empty: give the peer's host:port");
        }
        return pull(source, PartitionSet.of(partitions), progress);
    }

    long pull(String source, PartitionSet partitions, LongConsumer progress) {
        // Registered before the export starts reading, so no delete here can slip in unrecorded.
        PullTombstones tombstones = node.pulls().begin(partitions);
        try {
            long records = copy(source, partitions, tombstones, chunk -> { }, progress);
            // Pulled records have no log records: with FSYNC they are forced before the pull reports done.
            node.checkpoint();
            return records;
        } finally {
            node.pulls().end(tombstones);
        }
    }

    /**
     * Streams the source's export of {@code partitions} and applies each chunk here, skipping
     * what {@code tombstones} cover; {@code seen} sees each chunk once it is applied. Returns
     * the records handled.
     */
    long copy(String source, PartitionSet partitions, PullTombstones tombstones, Consumer<ExportChunk> seen, LongConsumer progress) {
        ManagedChannel channel = NettyChannelBuilder.forTarget(source, peers.channel())
                .maxInboundMessageSize(ShardService.MAX_MESSAGE_BYTES).build();
        try {
            ChunkApplier applier = new ChunkApplier(node, tombstones);
            PartitionsRequest request = PartitionsRequest.newBuilder()
                    .addAllPartitions(Arrays.stream(partitions.toArray()).boxed().toList()).build();
            Iterator<ExportChunk> chunks = ShardControlGrpc.newBlockingStub(channel).exportPartitions(request);
            long records = 0;
            while (chunks.hasNext()) {
                ExportChunk chunk = chunks.next();
                records += applier.apply(chunk);
                seen.accept(chunk);
                progress.accept(records);
            }
            return records;
        } finally {
            // Also cancels the export if applying failed midway.
            channel.shutdownNow();
        }
    }
}
