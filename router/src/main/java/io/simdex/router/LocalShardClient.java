package io.simdex.router;

import io.simdex.server.ShardNode;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** A shard in this JVM: calls the {@link ShardNode} directly, in the caller's thread. */
public final class LocalShardClient implements ShardClient {
    private final ShardNode node;

    public LocalShardClient(ShardNode node) {
        this.node = node;
    }

    public ShardNode node() {
        return node;
    }

    @Override
    public CompletableFuture<long[][]> probe(String c, int table, long[] fps, int maxDistance) {
        return run(() -> node.probe(c, table, fps, maxDistance));
    }

    @Override
    public CompletableFuture<Integer> bucketAdd(String c, int table, long[] fps) {
        return run(() -> node.bucketAdd(c, table, fps));
    }

    @Override
    public CompletableFuture<Integer> bucketRemove(String c, int table, long[] fps) {
        return run(() -> node.bucketRemove(c, table, fps));
    }

    @Override
    public CompletableFuture<ShardNode.Previous> bindIds(String c, String[] ids, long[] fps) {
        return run(() -> node.bindIds(c, ids, fps));
    }

    @Override
    public CompletableFuture<ShardNode.Previous> unbindIds(String c, String[] ids) {
        return run(() -> node.unbindIds(c, ids));
    }

    @Override
    public CompletableFuture<boolean[]> attachIds(String c, long[] fps, String[] ids) {
        return run(() -> node.attachIds(c, fps, ids));
    }

    @Override
    public CompletableFuture<boolean[]> detachIds(String c, long[] fps, String[] ids) {
        return run(() -> node.detachIds(c, fps, ids));
    }

    @Override
    public CompletableFuture<String[][]> resolveIds(String c, long[] fps) {
        return run(() -> node.resolveIds(c, fps));
    }

    @Override
    public CompletableFuture<ShardNode.ShardStats> stats(String c) {
        return run(() -> node.stats(c));
    }

    @Override
    public CompletableFuture<Long> lockBuckets(String c, int[] keys, long token, int leaseMillis, int waitMillis) {
        try {
            long stamp = node.lockBuckets(c, keys, token, leaseMillis, waitMillis);
            return stamp >= 0 ? CompletableFuture.completedFuture(stamp) : CompletableFuture.failedFuture(
                    io.grpc.Status.ABORTED.withDescription("bucket locks busy for " + waitMillis + " ms; retry").asRuntimeException());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(io.grpc.Status.CANCELLED.withDescription("interrupted").asRuntimeException());
        }
    }

    @Override
    public CompletableFuture<Integer> unlockBuckets(String c, int[] keys, long token, long stamp) {
        return run(() -> node.unlockBuckets(c, keys, token, stamp));
    }

    @Override
    public void close() {
        node.close();
    }

    private static <T> CompletableFuture<T> run(Supplier<T> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
