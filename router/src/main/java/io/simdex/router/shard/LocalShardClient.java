package io.simdex.router.shard;

import io.grpc.Status;
import io.simdex.server.LockGrant;
import io.simdex.server.PartitionSet;
import io.simdex.server.ShardNode;
import io.simdex.server.store.DocMaps;
import io.simdex.server.store.DocMaps.IdList;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** A shard in this JVM: calls the {@link ShardNode} directly, in the caller's thread. */
public class LocalShardClient implements ShardClient {
    private final ShardNode node;

    public LocalShardClient(ShardNode node) {
        this.node = node;
    }

    public ShardNode node() {
        return node;
    }

    /**
     * The node to call directly in the caller's thread, or null: the router queries without
     * its fan-out only when every shard gives one.
     */
    public ShardNode inCallingThread() {
        return node;
    }

    @Override
    public CompletableFuture<Found[]> probe(String c, long[] gens, int table, long[] fps, int maxDistance) {
        return run(() -> {
            ShardNode.Found[] found = node.probe(c, gens, table, fps, maxDistance);
            Found[] out = new Found[found.length];
            for (int i = 0; i < found.length; i++) {
                out[i] = found(found[i]);
            }
            return out;
        });
    }

    @Override
    public CompletableFuture<Integer> bucketAdd(String c, long gen, int table, long[] fps, boolean newFingerprints) {
        return run(() -> node.bucketAdd(c, gen, table, fps, !newFingerprints));
    }

    @Override
    public CompletableFuture<Integer> bucketRemove(String c, long gen, int table, long[] fps) {
        return run(() -> node.bucketRemove(c, gen, table, fps));
    }

    @Override
    public CompletableFuture<Previous> bindIds(String c, long gen, String[] ids, long[] fps) {
        return run(() -> previous(node.bindIds(c, gen, ids, fps)));
    }

    @Override
    public CompletableFuture<Previous> unbindIds(String c, String[] ids) {
        return run(() -> previous(node.unbindIds(c, ids)));
    }

    @Override
    public CompletableFuture<boolean[]> attachIds(String c, long gen, long[] fps, String[] ids) {
        return run(() -> node.attachIds(c, gen, fps, ids));
    }

    @Override
    public CompletableFuture<boolean[]> detachIds(String c, long gen, long[] fps, String[] ids) {
        return run(() -> node.detachIds(c, gen, fps, ids));
    }

    @Override
    public CompletableFuture<Ids[]> resolveIds(String c, long[] gens, long[] fps, int limit) {
        return run(() -> {
            IdList[] found = node.resolveIds(c, gens, fps, limit);
            Ids[] out = new Ids[found.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = new Ids(found[i].ids(), found[i].total());
            }
            return out;
        });
    }

    @Override
    public CompletableFuture<ShardStats> stats(String c, long minGeneration) {
        return run(() -> {
            ShardNode.ShardStats s = node.stats(c, minGeneration);
            return new ShardStats(s.documents(), s.fingerprints(), s.bucketEntries(), s.tableBytes(), s.docBytes());
        });
    }

    @Override
    public CompletableFuture<Integer> expireBefore(String c, long minGeneration) {
        return run(() -> node.expireBefore(c, minGeneration));
    }

    @Override
    public CompletableFuture<Integer> prepareGeneration(String c, long generation, boolean evenIfUnused) {
        return run(() -> node.prepareGeneration(c, generation, evenIfUnused));
    }

    @Override
    public CompletableFuture<Integer> putTexts(String c, long gen, String[] ids, String[] texts) {
        return run(() -> node.putTexts(c, gen, ids, texts));
    }

    @Override
    public CompletableFuture<Integer> dropTexts(String c, long gen, String[] ids) {
        return run(() -> node.dropTexts(c, gen, ids));
    }

    @Override
    public CompletableFuture<String[]> getTexts(String c, long[] gens, String[] ids) {
        return run(() -> node.getTexts(c, gens, ids));
    }

    @Override
    public CompletableFuture<Bound> lookupIds(String c, long[] gens, String[] ids) {
        return run(() -> {
            long[] fps = new long[ids.length];
            boolean[] found = new boolean[ids.length];
            node.fingerprintsOf(c, gens, ids, fps, found);
            return new Bound(found, fps);
        });
    }

    @Override
    public CompletableFuture<ExportIdsPage> exportIds(String c, long[] gens, byte[] partitions, long generation, int mapGeneration, int segment,
            int limit) {
        return run(() -> {
            ShardNode.ExportPage page = node.exportIds(c, gens, PartitionSet.ofBitmap(partitions), generation,
                    new DocMaps.Position(mapGeneration, segment), limit);
            String[] ids = page.ids().toArray(new String[0]);
            return page.next() == null ? new ExportIdsPage(ids, page.fingerprints(), true, 0, 0, 0)
                    : new ExportIdsPage(ids, page.fingerprints(), false, page.generation(), page.next().mapGeneration(), page.next().segment());
        });
    }

    @Override
    public CompletableFuture<Found> lookupContent(String c, long[] gens, byte[][] hashes) {
        return run(() -> found(node.lookupContent(c, gens, hashes)));
    }

    @Override
    public CompletableFuture<Integer> recordContent(String c, long gen, byte[][] hashes, long[] fps) {
        return run(() -> node.recordContent(c, gen, hashes, fps));
    }

    @Override
    public CompletableFuture<boolean[]> checkUrls(String job, byte[][] hashes, long now, long expiresAt, boolean checkOnly) {
        return run(() -> node.checkUrls(job, hashes, now, expiresAt, checkOnly));
    }

    @Override
    public CompletableFuture<Long> sweepUrls(long now) {
        return run(() -> node.sweepUrls(now));
    }

    @Override
    public CompletableFuture<Boolean> dropUrlJob(String job) {
        return run(() -> node.dropUrlJob(job));
    }

    @Override
    public CompletableFuture<Granted> lockBuckets(String c, int[] keys, long token, int leaseMillis, int waitMillis) {
        try {
            LockGrant grant = node.lockBuckets(c, keys, token, leaseMillis, waitMillis);
            // Nothing pending (every lock but one after a failure): no stream to build per lock group.
            return grant.stamp() >= 0 ? CompletableFuture.completedFuture(new Granted(grant.stamp(), grant.pending().isEmpty() ? List.of()
                    : grant.pending().stream().map(i -> new Granted.Intent(i.token(), i.stamp(), i.docs())).toList()))
                    : CompletableFuture.failedFuture(Status.ABORTED.withDescription("bucket locks busy for " + waitMillis + " ms; retry")
                    .asRuntimeException());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(Status.CANCELLED.withDescription("interrupted").asRuntimeException());
        }
    }

    @Override
    public CompletableFuture<Integer> unlockBuckets(String c, int[] keys, long token, long stamp, boolean keepPending) {
        return run(() -> node.unlockBuckets(c, keys, token, stamp, keepPending));
    }

    @Override
    public CompletableFuture<Integer> recordIntent(String c, int[] keys, long token, long stamp, byte[] docs) {
        return run(() -> node.recordIntent(c, keys, token, stamp, docs));
    }

    @Override
    public CompletableFuture<Integer> settleIntents(String c, long[] tokens) {
        return run(() -> node.settleIntents(tokens));
    }

    /** Closes the node: a router that owns its local shards closes them with itself. */
    @Override
    public void close() {
        node.close();
    }

    // The node's answers in the protocol's value types: the same arrays, no copies.
    private static Found found(ShardNode.Found f) {
        return new Found(f.fingerprints(), f.generations());
    }

    private static Previous previous(ShardNode.Previous p) {
        return new Previous(p.present(), p.previous(), p.generation());
    }

    private static <T> CompletableFuture<T> run(Supplier<T> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
