package io.simdex.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.Internal;
import io.grpc.Context;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.simdex.core.Ids;
import io.simdex.core.Names;
import io.simdex.fingerprint.BlockTables;
import io.simdex.proto.v1.ExportChunk;
import io.simdex.proto.v1.FingerprintList;
import io.simdex.proto.v1.IdList;
import io.simdex.proto.v1.NodeStatus;
import io.simdex.proto.v1.NodeStatusRequest;
import io.simdex.proto.v1.PartitionsRequest;
import io.simdex.proto.v1.PullProgress;
import io.simdex.proto.v1.PullRequest;
import io.simdex.proto.v1.SetEpochRequest;
import io.simdex.proto.v1.ShardBucketAddManyRequest;
import io.simdex.proto.v1.ShardBucketPart;
import io.simdex.proto.v1.ShardBucketRequest;
import io.simdex.proto.v1.ShardBucketWindow;
import io.simdex.proto.v1.ShardBucketWindowAck;
import io.simdex.proto.v1.ShardContentRequest;
import io.simdex.proto.v1.ShardCountResponse;
import io.simdex.proto.v1.ShardDropUrlJobRequest;
import io.simdex.proto.v1.ShardExpireRequest;
import io.simdex.proto.v1.ShardFlagsResponse;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardIdsRequest;
import io.simdex.proto.v1.ShardIntent;
import io.simdex.proto.v1.ShardIntentRequest;
import io.simdex.proto.v1.ShardLockRequest;
import io.simdex.proto.v1.ShardLockResponse;
import io.simdex.proto.v1.ShardPrepareRequest;
import io.simdex.proto.v1.ShardPreviousResponse;
import io.simdex.proto.v1.ShardProbeManyRequest;
import io.simdex.proto.v1.ShardProbeManyResponse;
import io.simdex.proto.v1.ShardProbePart;
import io.simdex.proto.v1.ShardProbeRequest;
import io.simdex.proto.v1.ShardProbeResponse;
import io.simdex.proto.v1.ShardReadAnswer;
import io.simdex.proto.v1.ShardReadRequest;
import io.simdex.proto.v1.ShardResolveRequest;
import io.simdex.proto.v1.ShardResolveResponse;
import io.simdex.proto.v1.ShardSettleRequest;
import io.simdex.proto.v1.ShardStatsRequest;
import io.simdex.proto.v1.ShardStatsResponse;
import io.simdex.proto.v1.ShardSweepUrlsRequest;
import io.simdex.proto.v1.ShardExportIdsRequest;
import io.simdex.proto.v1.ShardExportIdsResponse;
import io.simdex.proto.v1.ShardLookupIdsRequest;
import io.simdex.proto.v1.ShardLookupIdsResponse;
import io.simdex.proto.v1.ShardTextsRequest;
import io.simdex.proto.v1.ShardTextsResponse;
import io.simdex.proto.v1.ShardUnlockRequest;
import io.simdex.proto.v1.ShardWriteIdsRequest;
import io.simdex.proto.v1.ShardWriteIdsResponse;
import io.simdex.proto.v1.ShardUrlsRequest;
import io.simdex.server.grpc.ServerBounds;
import io.simdex.server.store.DiskSpace;
import io.simdex.server.store.DocMaps;
import io.simdex.server.store.FingerprintSketch;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import static io.simdex.server.Calls.answer;
import static io.simdex.server.Calls.invalid;

/**
 * The shard data plane over gRPC (shard.proto's {@code Shard}): checks the request's shape, then
 * calls the {@link ShardNode}. While the {@link NodeState} says the node is not readable, the
 * reads (Probe, ResolveIds, GetTexts, LookupIds, LookupContent) fail with UNAVAILABLE and everything else
 * works; the placement epoch is enforced by {@link EpochFence}, see {@link #withFence}. Moves,
 * the epoch and node status are {@link ShardControlService}'s, on the same port.
 */
public final class ShardService extends ShardGrpc.ShardImplBase {
    /** Largest message a shard accepts or a pull receives: the router's limit too (ServerBounds). */
    public static final int MAX_MESSAGE_BYTES = ServerBounds.MAX_MESSAGE_BYTES;
    /** Bindings an ExportIds page holds at most (as many 256-byte ids take 2.7 MB). */
    static final int MAX_EXPORT_PAGE = 10_000;

    private final ShardNode node;
    private final NodeState state;
    private final StreamedRequests streamed;
    private final Executor replies;

    /**
     * A service for a node outside any cluster: always readable, epoch 0; writes made durable by
     * a force are answered on the log's own thread ({@link #ShardService(ShardNode, NodeState,
     * StreamedRequests, Executor)} names another).
     */
    public ShardService(ShardNode node) {
        this(node, NodeState.standalone(), StreamedRequests.NONE, Runnable::run);
    }

    /**
     * @param streamed told of each request answered inside a ReadStream, as the unary call it stands for
     * @param replies  sends the answers of writes that waited for a force of the log
     */
    public ShardService(ShardNode node, NodeState state, StreamedRequests streamed, Executor replies) {
        this.node = node;
        this.state = state;
        this.streamed = streamed;
        this.replies = replies;
    }

    /** The service behind an {@link EpochFence} on {@code state}: what a cluster node registers, beside ShardControlService's. */
    public static ServerServiceDefinition withFence(ShardNode node, NodeState state) {
        return withFence(node, state, StreamedRequests.NONE, Runnable::run);
    }

    /**
     * As {@link #withFence(ShardNode, NodeState)}, telling {@code streamed} of each request
     * answered inside a ReadStream, and sending on {@code replies} the answers of writes that
     * waited for a force of the log.
     */
    public static ServerServiceDefinition withFence(ShardNode node, NodeState state, StreamedRequests streamed, Executor replies) {
        return EpochFence.around(new ShardService(node, state, streamed, replies), state);
    }

    @Override
    public void probe(ShardProbeRequest req, StreamObserver<ShardProbeResponse> out) {
        answer(out, () -> {
            requireReadable();
            int table = table(req.getTable());
            maxDistance(req.getMaxDistance());
            return probeResponse(node.probe(collection(req.getCollection()), toArray(req.getGenerationsList()), table,
                    toArray(req.getFingerprintsList()), req.getMaxDistance()));
        });
    }

    private static ShardProbeResponse probeResponse(ShardNode.Found[] matches) {
        ShardProbeResponse.Builder b = ShardProbeResponse.newBuilder();
        for (ShardNode.Found m : matches) {
            FingerprintList.Builder list = FingerprintList.newBuilder();
            for (int i = 0; i < m.fingerprints().length; i++) {
                list.addFingerprints(m.fingerprints()[i]).addGenerations(m.generations()[i]);
            }
            b.addMatches(list);
        }
        return b.build();
    }

    private static void maxDistance(int maxDistance) {
        if (Integer.compareUnsigned(maxDistance, BlockTables.MAX_CANDIDATE_DISTANCE) > 0) {
            throw invalid("max_distance " + Integer.toUnsignedString(maxDistance) + " above " + BlockTables.MAX_CANDIDATE_DISTANCE);
        }
    }

    @Override
    public void probeMany(ShardProbeManyRequest req, StreamObserver<ShardProbeManyResponse> out) {
        answer(out, () -> probeMany(req));
    }

    @Override
    public StreamObserver<ShardReadRequest> readStream(StreamObserver<ShardReadAnswer> out) {
        return new ReadStreamAnswers(this::probeMany, this::resolveIds, state, streamed, out);
    }

    /** ProbeMany's answer, or a status exception. */
    private ShardProbeManyResponse probeMany(ShardProbeManyRequest req) {
        requireReadable();
        String c = collection(req.getCollection());
        for (int i = 0; i < req.getPartsCount(); i++) {
            ShardProbePart part = req.getParts(i);
            table(part.getTable());
            maxDistance(part.getMaxDistance());
            if (req.getSharedFingerprints() && i > 0 && part.getFingerprintsCount() > 0) {
                throw invalid("shared_fingerprints is set, but part " + i + " has fingerprints of its own");
            }
        }
        ProbeIds ids = ProbeIds.of(req.getResolvePartitions(), req.getResolveNearest());
        long[] gens = toArray(req.getGenerationsList());
        ShardProbeManyResponse.Builder b = ShardProbeManyResponse.newBuilder();
        long[] shared = req.getSharedFingerprints() && req.getPartsCount() > 0 ? toArray(req.getParts(0).getFingerprintsList()) : null;
        int parts = req.getPartsCount();
        int[] tables = new int[parts];
        long[][] fps = new long[parts][];
        int[] maxDistances = new int[parts];
        for (int i = 0; i < parts; i++) {
            ShardProbePart part = req.getParts(i);
            tables[i] = part.getTable();
            fps[i] = shared != null ? shared : toArray(part.getFingerprintsList());
            maxDistances[i] = part.getMaxDistance();
        }
        ShardNode.Found[][] found = node.probe(c, gens, tables, fps, maxDistances);
        for (int i = 0; i < parts; i++) {
            if (req.getFlat()) {
                FlatAnswers.addMatches(found[i], b);
            } else {
                b.addParts(probeResponse(found[i]));
            }
            if (ids != null) {
                ids.add(found[i], fps[i], req.getParts(i).getFlip());
            }
        }
        if (ids != null) {
            ids.resolve(node, c, req.getIdLimit(), req.getFlat(), b);
        }
        return b.build();
    }

    @Override
    public void bucketAddMany(ShardBucketAddManyRequest req, StreamObserver<ShardCountResponse> out) {
        adding(out, () -> ShardCountResponse.newBuilder().setChanged(addMany(req)).build());
    }

    @Override
    public StreamObserver<ShardBucketWindow> bucketAddStream(StreamObserver<ShardBucketWindowAck> out) {
        return new BucketWindows(req -> {
            DiskSpace.requireRoom();
            return addMany(req);
        }, node, state, out);
    }

    /** BucketAddMany's work, not yet durable: checks every part, then applies them in order; how many buckets changed. */
    private long addMany(ShardBucketAddManyRequest req) {
        String c = collection(req.getCollection());
        for (ShardBucketPart part : req.getPartsList()) {
            table(part.getTable());
        }
        long changed = 0;
        for (ShardBucketPart part : req.getPartsList()) {
            changed += node.bucketAdd(c, req.getGeneration(), part.getTable(), toArray(part.getFingerprintsList()), !part.getNewFingerprints());
        }
        return changed;
    }

    @Override
    public void bucketAdd(ShardBucketRequest req, StreamObserver<ShardCountResponse> out) {
        adding(out, () -> ShardCountResponse.newBuilder().setChanged(
                node.bucketAdd(collection(req.getCollection()), req.getGeneration(), table(req.getTable()), toArray(req.getFingerprintsList()),
                        !req.getNewFingerprints())).build());
    }

    @Override
    public void bucketRemove(ShardBucketRequest req, StreamObserver<ShardCountResponse> out) {
        write(out, () -> ShardCountResponse.newBuilder().setChanged(
                node.bucketRemove(collection(req.getCollection()), req.getGeneration(), table(req.getTable()), toArray(req.getFingerprintsList()))).build());
    }

    @Override
    public void bindIds(ShardIdsRequest req, StreamObserver<ShardPreviousResponse> out) {
        adding(out, () -> previous(node.bindIds(collection(req.getCollection()), req.getGeneration(), ids(req, true), toArray(req.getFingerprintsList()))));
    }

    @Override
    public void unbindIds(ShardIdsRequest req, StreamObserver<ShardPreviousResponse> out) {
        write(out, () -> previous(node.unbindIds(collection(req.getCollection()), ids(req, false))));
    }

    @Override
    public void attachIds(ShardIdsRequest req, StreamObserver<ShardFlagsResponse> out) {
        adding(out, () -> flags(node.attachIds(collection(req.getCollection()), req.getGeneration(), toArray(req.getFingerprintsList()), ids(req, true))));
    }

    /** BindIds then AttachIds, both parts checked before either changes anything. */
    @Override
    public void writeIds(ShardWriteIdsRequest req, StreamObserver<ShardWriteIdsResponse> out) {
        adding(out, () -> {
            String c = collection(req.getCollection());
            String[] bindIds = paired("bind", req.getBindIdsList(), req.getBindFingerprintsCount());
            long[] bindFps = toArray(req.getBindFingerprintsList());
            String[] attachIds = bindIds;
            long[] attachFps = bindFps;
            if (req.getAttachAsBind()) {
                if (req.getAttachIdsCount() > 0 || req.getAttachFingerprintsCount() > 0) {
                    throw invalid("attach_as_bind with " + req.getAttachIdsCount() + " attach ids and "
                            + req.getAttachFingerprintsCount() + " attach fingerprints; both must be empty");
                }
            } else {
                attachIds = paired("attach", req.getAttachIdsList(), req.getAttachFingerprintsCount());
                attachFps = toArray(req.getAttachFingerprintsList());
            }
            ShardPreviousResponse bound = previous(node.bindIds(c, req.getGeneration(), bindIds, bindFps));
            boolean[] attached = node.attachIds(c, req.getGeneration(), attachFps, attachIds);
            ShardWriteIdsResponse.Builder b = ShardWriteIdsResponse.newBuilder().setBound(bound);
            for (boolean f : attached) {
                b.addAttached(f);
            }
            return b.build();
        });
    }

    /** A part's ids, checked, and as many as its fingerprints. */
    private static String[] paired(String part, List<String> ids, int fingerprints) {
        if (ids.size() != fingerprints) {
            throw invalid(part + "_ids: " + ids.size() + " ids but " + fingerprints + " fingerprints");
        }
        return checkedIds(part + "_ids", ids);
    }

    @Override
    public void detachIds(ShardIdsRequest req, StreamObserver<ShardFlagsResponse> out) {
        write(out, () -> flags(node.detachIds(collection(req.getCollection()), req.getGeneration(), toArray(req.getFingerprintsList()), ids(req, true))));
    }

    @Override
    public void resolveIds(ShardResolveRequest req, StreamObserver<ShardResolveResponse> out) {
        answer(out, () -> resolveIds(req));
    }

    /** ResolveIds' answer, or a status exception. */
    private ShardResolveResponse resolveIds(ShardResolveRequest req) {
        requireReadable();
        ShardResolveResponse.Builder b = ShardResolveResponse.newBuilder();
        if (req.getGenerationsCount() != req.getFingerprintsCount()) {
            throw invalid(req.getFingerprintsCount() + " fingerprints but " + req.getGenerationsCount() + " generations");
        }
        DocMaps.IdList[] found = node.resolveIds(collection(req.getCollection()), toArray(req.getGenerationsList()),
                toArray(req.getFingerprintsList()), req.getLimit());
        if (req.getFlat()) {
            FlatAnswers.addIds(found, b::addIdCounts, b::addIdValues, b::addTotals);
        } else {
            for (DocMaps.IdList ids : found) {
                b.addIds(IdList.newBuilder().addAllIds(Arrays.asList(ids.ids())).setTotal(ids.total()));
            }
        }
        return b.build();
    }

    @Override
    public void stats(ShardStatsRequest req, StreamObserver<ShardStatsResponse> out) {
        answer(out, () -> {
            ShardNode.ShardStats s = node.stats(collection(req.getCollection()), req.getMinGeneration());
            return ShardStatsResponse.newBuilder().setDocuments(s.documents()).setFingerprints(s.fingerprints())
                    .setBucketEntries(s.bucketEntries()).setTableBytes(s.tableBytes()).setDocBytes(s.docBytes()).build();
        });
    }

    @Override
    public void expireGenerations(ShardExpireRequest req, StreamObserver<ShardCountResponse> out) {
        write(out, () -> ShardCountResponse.newBuilder().setChanged(
                node.expireBefore(collection(req.getCollection()), req.getMinGeneration())).build());
    }

    @Override
    public void prepareGeneration(ShardPrepareRequest req, StreamObserver<ShardCountResponse> out) {
        write(out, () -> ShardCountResponse.newBuilder().setChanged(
                node.prepareGeneration(collection(req.getCollection()), req.getGeneration(), req.getEvenIfUnused())).build());
    }

    @Override
    public void putTexts(ShardTextsRequest req, StreamObserver<ShardCountResponse> out) {
        adding(out, () -> {
            if (req.getIdsCount() != req.getTextsCount()) {
                throw invalid(req.getIdsCount() + " ids but " + req.getTextsCount() + " texts");
            }
            return ShardCountResponse.newBuilder().setChanged(node.putTexts(collection(req.getCollection()), req.getGeneration(),
                    checkedTextKeys(req.getIdsList()), req.getTextsList().toArray(new String[0]))).build();
        });
    }

    @Override
    public void dropTexts(ShardTextsRequest req, StreamObserver<ShardCountResponse> out) {
        write(out, () -> ShardCountResponse.newBuilder().setChanged(node.dropTexts(collection(req.getCollection()), req.getGeneration(),
                checkedTextKeys(req.getIdsList()))).build());
    }

    @Override
    public void getTexts(ShardTextsRequest req, StreamObserver<ShardTextsResponse> out) {
        answer(out, () -> {
            requireReadable();
            String[] texts = node.getTexts(collection(req.getCollection()), toArray(req.getGenerationsList()),
                    req.getIdsList().toArray(new String[0]));
            ShardTextsResponse.Builder b = ShardTextsResponse.newBuilder();
            for (String t : texts) {
                b.addPresent(t != null).addTexts(t == null ? "" : t);
            }
            return b.build();
        });
    }

    @Override
    public void exportIds(ShardExportIdsRequest req, StreamObserver<ShardExportIdsResponse> out) {
        answer(out, () -> {
            requireReadable();
            String collection = collection(req.getCollection());
            PartitionSet partitions;
            try {
                partitions = PartitionSet.ofBitmap(req.getPartitions().toByteArray());
            } catch (IllegalArgumentException e) {
                throw Calls.invalid("partitions: " + e.getMessage());
            }
            if (req.getLimit() < 1 || req.getLimit() > MAX_EXPORT_PAGE) {
                throw Calls.invalid("limit " + Integer.toUnsignedString(req.getLimit()) + " outside 1.." + MAX_EXPORT_PAGE);
            }
            if (req.getMapGeneration() < 0 || req.getSegment() < 0) {
                throw Calls.invalid("position " + Integer.toUnsignedString(req.getMapGeneration()) + "/" + Integer.toUnsignedString(req.getSegment())
                        + " is not one this node gave");
            }
            ShardNode.ExportPage page = node.exportIds(collection, toArray(req.getGenerationsList()), partitions, req.getGeneration(),
                    new DocMaps.Position(req.getMapGeneration(), req.getSegment()), req.getLimit());
            ShardExportIdsResponse.Builder b = ShardExportIdsResponse.newBuilder().addAllIds(page.ids());
            for (long fp : page.fingerprints()) {
                b.addFingerprints(fp);
            }
            if (page.next() == null) {
                return b.setDone(true).build();
            }
            return b.setGeneration(page.generation()).setMapGeneration(page.next().mapGeneration()).setSegment(page.next().segment()).build();
        });
    }

    @Override
    public void lookupIds(ShardLookupIdsRequest req, StreamObserver<ShardLookupIdsResponse> out) {
        answer(out, () -> {
            requireReadable();
            String[] ids = req.getIdsList().toArray(new String[0]);
            long[] fps = new long[ids.length];
            boolean[] found = new boolean[ids.length];
            node.fingerprintsOf(collection(req.getCollection()), toArray(req.getGenerationsList()), ids, fps, found);
            ShardLookupIdsResponse.Builder b = ShardLookupIdsResponse.newBuilder();
            for (int i = 0; i < ids.length; i++) {
                b.addFound(found[i]).addFingerprints(fps[i]);
            }
            return b.build();
        });
    }

    @Override
    public void lookupContent(ShardContentRequest req, StreamObserver<FingerprintList> out) {
        answer(out, () -> {
            requireReadable();
            ShardNode.Found f = node.lookupContent(collection(req.getCollection()), toArray(req.getGenerationsList()), hashes(req));
            FingerprintList.Builder b = FingerprintList.newBuilder();
            for (int i = 0; i < f.fingerprints().length; i++) {
                b.addFingerprints(f.fingerprints()[i]).addGenerations(f.generations()[i]);
            }
            return b.build();
        });
    }

    @Override
    public void recordContent(ShardContentRequest req, StreamObserver<ShardCountResponse> out) {
        adding(out, () -> {
            if (req.getFingerprintsCount() != req.getContentHashesCount()) {
                throw invalid(req.getContentHashesCount() + " content hashes but " + req.getFingerprintsCount() + " fingerprints");
            }
            return ShardCountResponse.newBuilder().setChanged(node.recordContent(collection(req.getCollection()),
                    req.getGeneration(), hashes(req), toArray(req.getFingerprintsList()))).build();
        });
    }

    private static byte[][] hashes(ShardContentRequest req) {
        byte[][] out = new byte[req.getContentHashesCount()][];
        for (int i = 0; i < out.length; i++) {
            out[i] = req.getContentHashes(i).toByteArray();
            if (out[i].length != 16) {
                throw invalid("content_hashes[" + i + "] has " + out[i].length + " bytes, not 16");
            }
        }
        return out;
    }

    @Override
    public void checkUrls(ShardUrlsRequest req, StreamObserver<ShardFlagsResponse> out) {
        write(out, () -> {
            byte[][] hashes = new byte[req.getUrlHashesCount()][];
            for (int i = 0; i < hashes.length; i++) {
                hashes[i] = req.getUrlHashes(i).toByteArray();
                if (hashes[i].length != 16) {
                    throw invalid("url_hashes[" + i + "] has " + hashes[i].length + " bytes, not 16");
                }
            }
            if (!req.getCheckOnly()) {
                DiskSpace.requireRoom();
            }
            return flags(node.checkUrls(job(req.getJob()), hashes, req.getNowSeconds(), req.getExpiresAtSeconds(), req.getCheckOnly()));
        });
    }

    @Override
    public void sweepUrls(ShardSweepUrlsRequest req, StreamObserver<ShardCountResponse> out) {
        write(out, () -> ShardCountResponse.newBuilder().setChanged(node.sweepUrls(req.getNowSeconds())).build());
    }

    @Override
    public void dropUrlJob(ShardDropUrlJobRequest req, StreamObserver<ShardCountResponse> out) {
        write(out, () -> ShardCountResponse.newBuilder().setChanged(node.dropUrlJob(job(req.getJob())) ? 1 : 0).build());
    }

    @Override
    public void lockBuckets(ShardLockRequest req, StreamObserver<ShardLockResponse> out) {
        answer(out, () -> {
            LockGrant grant;
            // A router that dies, or gives up, while this waits cancels the call: the wait ends
            // then, rather than take the keys for nobody once they come free.
            Context call = Context.current();
            Context.CancellationListener wake = cancelled -> node.wakeLockWaiters();
            call.addListener(wake, Runnable::run);
            try {
                grant = node.lockBuckets(collection(req.getCollection()), bucketKeys(req.getBucketKeysList()),
                        req.getToken(), req.getLeaseMs(), req.getWaitMs(), call::isCancelled);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw Status.CANCELLED.withDescription("interrupted while waiting for bucket locks").asRuntimeException();
            } finally {
                call.removeListener(wake);
            }
            if (grant.stamp() < 0 && call.isCancelled()) {
                throw Status.CANCELLED.withDescription("the caller went away while waiting for bucket locks").asRuntimeException();
            }
            if (grant.stamp() < 0) {
                throw Status.ABORTED.withDescription("bucket locks busy for " + req.getWaitMs() + " ms; retry").asRuntimeException();
            }
            ShardLockResponse.Builder r = ShardLockResponse.newBuilder().setStamp(grant.stamp());
            for (LockGrant.Intent i : grant.pending()) {
                r.addPending(ShardIntent.newBuilder().setToken(i.token()).setStamp(i.stamp()).setDocs(ByteString.copyFrom(i.docs())));
            }
            return r.build();
        });
    }

    @Override
    public void unlockBuckets(ShardUnlockRequest req, StreamObserver<ShardCountResponse> out) {
        answer(out, () -> ShardCountResponse.newBuilder().setChanged(node.unlockBuckets(collection(req.getCollection()),
                bucketKeys(req.getBucketKeysList()), req.getToken(), req.getStamp(), req.getKeepPending())).build());
    }

    @Override
    public void recordIntent(ShardIntentRequest req, StreamObserver<ShardCountResponse> out) {
        answer(out, () -> ShardCountResponse.newBuilder().setChanged(node.recordIntent(collection(req.getCollection()),
                bucketKeys(req.getBucketKeysList()), req.getToken(), req.getStamp(), req.getDocs().toByteArray())).build());
    }

    @Override
    public void settleIntents(ShardSettleRequest req, StreamObserver<ShardCountResponse> out) {
        answer(out, () -> {
            collection(req.getCollection());
            return ShardCountResponse.newBuilder().setChanged(node.settleIntents(req.getTokensList().stream().mapToLong(Long::longValue).toArray()))
                    .build();
        });
    }

    /**
     * As {@link #write}, for a write that adds data: refused (UNAVAILABLE) before it changes
     * anything while the disk is known to lack room ({@link DiskSpace}), as the embedded
     * router refuses it; the refusal starts the attempts that end the shortage.
     */
    private <T> void adding(StreamObserver<T> out, Supplier<T> call) {
        write(out, () -> {
            DiskSpace.requireRoom();
            return call.get();
        });
    }

    /**
     * As {@link Calls#answer}, for a write: the reply is sent once the node's changes are durable
     * ({@link ShardNode#durable}), by {@link #replies}. The handler's thread does not wait for the
     * force: waiting threads would be as many as the writes in flight, and a node with a bounded
     * handler pool would cap those, and with them the calls one force covers.
     */
    private <T> void write(StreamObserver<T> out, Supplier<T> call) {
        Calls.answerWhen(out, call, node::durable, replies);
    }

    private void requireReadable() {
        if (!state.readable()) {
            throw Status.UNAVAILABLE.withDescription("node " + state.nodeId() + " is catching up").asRuntimeException();
        }
    }

    private static int[] bucketKeys(List<Integer> keys) {
        int[] out = new int[keys.size()];
        for (int i = 0; i < out.length; i++) {
            int k = keys.get(i);
            if (k < 0 || k >= BlockTables.TABLES * BlockTables.KEYS_PER_TABLE) {
                throw invalid("bucket key " + Integer.toUnsignedString(k) + " outside 0.." + (BlockTables.TABLES * BlockTables.KEYS_PER_TABLE - 1));
            }
            out[i] = k;
        }
        return out;
    }

    /** A collection name, checked here too: a node port may be reached without a router, and each name is a directory. */
    private static String collection(String name) {
        return named("collection", name);
    }

    private static String job(String name) {
        return named("job", name);
    }

    private static String named(String field, String name) {
        if (!Names.isValid(name)) {
            throw invalid(Names.problem(field, name));
        }
        return name;
    }

    private static int table(int table) {
        if (table < 0 || table >= BlockTables.TABLES) {
            throw invalid("table " + table + " outside 0.." + (BlockTables.TABLES - 1));
        }
        return table;
    }

    private static String[] ids(ShardIdsRequest req, boolean paired) {
        if (paired && req.getIdsCount() != req.getFingerprintsCount()) {
            throw invalid(req.getIdsCount() + " ids but " + req.getFingerprintsCount() + " fingerprints");
        }
        return checkedIds(req.getIdsList());
    }

    /** The ids of a write, each checked against {@link Ids} before anything changes. */
    private static String[] checkedIds(List<String> ids) {
        return checkedIds("ids", ids);
    }

    /** As {@link #checkedIds(List)}, naming the field {@code field}. */
    private static String[] checkedIds(String field, List<String> ids) {
        String[] out = ids.toArray(new String[0]);
        for (int i = 0; i < out.length; i++) {
            String problem = Ids.problem(field + "[" + i + "]", out[i]);
            if (problem != null) {
                throw invalid(problem);
            }
        }
        return out;
    }

    /** The keys of a text write, each an id ({@link Ids}) or a fingerprint's sketch key ({@link FingerprintSketch#isKey}). */
    private static String[] checkedTextKeys(List<String> keys) {
        String[] out = keys.toArray(new String[0]);
        for (int i = 0; i < out.length; i++) {
            String problem = FingerprintSketch.isKey(out[i]) ? null : Ids.problem("ids[" + i + "]", out[i]);
            if (problem != null) {
                throw invalid(problem);
            }
        }
        return out;
    }

    /** A repeated 64-bit field as an array; protobuf's own lists are read without boxing. */
    private static long[] toArray(List<Long> fps) {
        long[] a = new long[fps.size()];
        if (fps instanceof Internal.LongList primitive) {
            for (int i = 0; i < a.length; i++) {
                a[i] = primitive.getLong(i);
            }
            return a;
        }
        for (int i = 0; i < a.length; i++) {
            a[i] = fps.get(i);
        }
        return a;
    }

    private static ShardPreviousResponse previous(ShardNode.Previous p) {
        ShardPreviousResponse.Builder b = ShardPreviousResponse.newBuilder();
        for (int i = 0; i < p.present().length; i++) {
            b.addPresent(p.present()[i]).addPrevious(p.previous()[i]).addPreviousGeneration(p.generation()[i]);
        }
        return b.build();
    }

    private static ShardFlagsResponse flags(boolean[] flags) {
        ShardFlagsResponse.Builder b = ShardFlagsResponse.newBuilder();
        for (boolean f : flags) {
            b.addFlags(f);
        }
        return b.build();
    }
}
