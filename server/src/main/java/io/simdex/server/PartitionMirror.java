package io.simdex.server;

import io.simdex.core.Partitions;
import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.server.tls.PeerCredentials;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import java.util.logging.Logger;

/**
 * A pull that leaves this node's records of some partitions as the source has them: what
 * {@link PartitionPuller} copies, and the removal of what this node holds and the source does
 * not. A node that was down or missed writes catches up this way: a delete it missed (or the
 * old fingerprint of a rebound id) would otherwise stay here, and be found again once reads
 * come here.
 *
 * <h2>What it removes</h2>
 * A bucket entry, an id's binding, or a fingerprint-id pair of the partitions that the source's
 * export did not send ({@link MirrorCandidates}), unless this node changed it since the pull
 * began. The export shows the source as it was when it read each key, and a write may reach
 * the source a little after it reached this node; so the candidates are watched (an add of one
 * here from then on keeps it, {@link ActivePulls#watch}), the pull waits ({@code settle}) for
 * writes in flight, and asks the source for the candidates' partitions again: only those still
 * missing there are removed, through the node's ordinary delete paths (logged like any write),
 * and only if the source is still in sync then ({@code sourceInSync}: not known to have missed
 * a write, whose record it would lack). Bulk removal is refused: when more than a third of
 * this node's records of the partitions (and more than {@value #MIN_REFUSED}), or more than
 * {@link MirrorCandidates#MAX}, would go, nothing is removed and the pull reports it: a source
 * missing that much (one whose disk was replaced, say) is more likely wrong than this node.
 */
public final class PartitionMirror {
    private static final Logger LOG = Logger.getLogger(PartitionMirror.class.getName());
    static final int MIN_REFUSED = 1000;

    /** How a mirroring pull lets writes in flight reach the source before it asks again. */
    @FunctionalInterface
    public interface Settle {
        void await() throws InterruptedException;

        /** Waits {@code time}: longer than a write to all replicas takes, unless one is failing (then its router marks it). */
        static Settle waiting(Duration time) {
            return () -> Thread.sleep(time.toMillis());
        }
    }

    /** What a mirroring pull did: records the source sent (both passes), records removed here, and whether removal was refused. */
    public record Result(long records, long removed, boolean refused) {
    }

    private final ShardNode node;
    private final PartitionPuller puller;

    public PartitionMirror(ShardNode node, PeerCredentials peers) {
        this.node = node;
        this.puller = new PartitionPuller(node, peers);
    }

    /**
     * Mirrors {@code partitions} from the ShardControl service at {@code source}; see the class
     * comment. {@code progress} gets the records handled so far after every chunk.
     *
     * @throws IllegalArgumentException for an empty source, no partitions or one outside 0..4095
     * @throws io.grpc.StatusRuntimeException when an export fails: what was copied stays, nothing is removed
     */
    public Result mirror(String source, int[] partitions, Settle settle, BooleanSupplier sourceInSync, LongConsumer progress)
            throws InterruptedException {
        if (source == null || source.isBlank()) {
            throw new IllegalArgumentException("source is empty: give the peer's host:port");
        }
        PartitionSet all = PartitionSet.of(partitions);
        PullTombstones tombstones = node.pulls().begin(all);
        try {
            MirrorCandidates missing = new MirrorCandidates(node, all, tombstones);
            long records = puller.copy(source, all, tombstones, missing, progress);
            List<Object> candidates = missing.candidates();
            if (candidates.isEmpty()) {
                node.checkpoint();
                return new Result(records, 0, false);
            }
            if (missing.overflowed()) {
                LOG.warning(String.format("more than %,d records here are missing at %s (of %,d it sent): none is removed",
                        MirrorCandidates.MAX, source, records));
            }
            if (missing.overflowed() || refused(candidates.size(), records, source)) {
                node.checkpoint();
                return new Result(records, 0, true);
            }
            node.pulls().watch(tombstones, candidates);
            settle.await();
            Set<Object> gone = new HashSet<>(candidates);
            long again = puller.copy(source, PartitionSet.of(partitionsOf(gone)), tombstones, chunk -> sentAgain(chunk, gone), n -> { });
            records += again;
            if (!sourceInSync.getAsBoolean()) {
                LOG.warning(source + " missed a write during the pull: the " + gone.size() + " records it lacks stay here");
                node.checkpoint();
                return new Result(records, 0, true);
            }
            long removed = 0;
            for (Object key : gone) {
                removed += remove(key, tombstones) ? 1 : 0;
            }
            node.checkpoint();
            return new Result(records, removed, false);
        } finally {
            node.pulls().end(tombstones);
        }
    }

    private static boolean refused(int missing, long sent, String source) {
        if (missing <= MIN_REFUSED || missing <= sent / 2) {
            return false;
        }
        LOG.warning(String.format("%,d records here are missing at %s (of %,d it sent): more than a third of this node's, so none is removed",
                missing, source, sent));
        return true;
    }

    /** Drops from {@code gone} each record the second export sent. */
    private static void sentAgain(ExportChunk c, Set<Object> gone) {
        if (!c.getUrlJob().isEmpty()) {
            return;
        }
        String coll = c.getCollection();
        long g = c.getGeneration();
        for (int i = 0; i < c.getBucketTablesCount(); i++) {
            gone.remove(new PullTombstones.BucketEntry(coll, g, c.getBucketTables(i), c.getBucketFingerprints(i)));
        }
        for (String id : c.getIdsList()) {
            gone.remove(new PullTombstones.Id(coll, id));
        }
        for (int i = 0; i < c.getAttachFingerprintsCount(); i++) {
            gone.remove(new PullTombstones.Attachment(coll, g, c.getAttachFingerprints(i), c.getAttachIds(i)));
        }
    }

    /** Removes one record unless it changed here since the pull began, checked and removed under its partition's lock. */
    private boolean remove(Object key, PullTombstones tombstones) {
        int partition = partitionOf(key);
        try (ActivePulls.Stripe s = node.pulls().lock(partition)) {
            if (tombstones.contains(key)) {
                return false;
            }
            if (key instanceof PullTombstones.BucketEntry e) {
                return node.bucketRemove(e.collection(), e.generation(), e.table(), new long[]{e.fp()}) > 0;
            }
            if (key instanceof PullTombstones.Attachment a) {
                node.detachIds(a.collection(), a.generation(), new long[]{a.fp()}, new String[]{a.id()});
                return true;
            }
            PullTombstones.Id id = (PullTombstones.Id) key;
            return node.unbindIds(id.collection(), new String[]{id.id()}).present()[0];
        }
    }

    private static int[] partitionsOf(Set<Object> keys) {
        TreeSet<Integer> out = new TreeSet<>();
        keys.forEach(k -> out.add(partitionOf(k)));
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int partitionOf(Object key) {
        if (key instanceof PullTombstones.BucketEntry e) {
            return Partitions.ofBucket(e.table(), BlockTables.block(e.fp(), e.table()));
        }
        if (key instanceof PullTombstones.Attachment a) {
            return Partitions.ofFingerprint(a.fp());
        }
        return Partitions.ofId(((PullTombstones.Id) key).id());
    }
}
