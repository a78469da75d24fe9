package io.simdex.router.shard;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import com.google.protobuf.Internal;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.Context;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.simdex.proto.v1.IdList;
import io.simdex.proto.v1.ShardBucketAddManyRequest;
import io.simdex.proto.v1.ShardBucketPart;
import io.simdex.proto.v1.ShardBucketRequest;
import io.simdex.proto.v1.ShardContentRequest;
import io.simdex.proto.v1.ShardDropUrlJobRequest;
import io.simdex.proto.v1.ShardExpireRequest;
import io.simdex.proto.v1.ShardControlGrpc;
import io.simdex.proto.v1.ShardGrpc;
import io.simdex.proto.v1.ShardIdsRequest;
import io.simdex.proto.v1.ShardIntentRequest;
import io.simdex.proto.v1.ShardLockRequest;
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
import io.simdex.proto.v1.ShardSettleRequest;
import io.simdex.proto.v1.ShardStatsRequest;
import io.simdex.proto.v1.ShardSweepUrlsRequest;
import io.simdex.proto.v1.ShardExportIdsRequest;
import io.simdex.proto.v1.ShardLookupIdsRequest;
import io.simdex.proto.v1.ShardTextsRequest;
import io.simdex.proto.v1.ShardUnlockRequest;
import io.simdex.proto.v1.ShardWriteIdsRequest;
import io.simdex.proto.v1.ShardUrlsRequest;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * A shard in another process, over gRPC. Calls made while serving a client request inherit
 * that request's deadline through the gRPC Context, so a client's deadline reaches the shards.
 */
public final class RemoteShardClient implements ShardClient {
    private final ManagedChannel channel;
    private final ShardGrpc.ShardFutureStub stub;
    private final long readTimeoutMillis;
    private final long writeTimeoutMillis;
    private final boolean ownsChannel;
    /** Whether the node takes the batched calls (ProbeMany, BucketAddMany); shared by every epoch's view of the node. */
    private final AtomicBoolean batches;
    /** Whether the node takes BucketAddStream; shared likewise. */
    private final AtomicBoolean streams;
    /** Whether the node takes WriteIds; shared likewise. */
    private final AtomicBoolean idWrites;
    /** Where ProbeMany and ResolveIds go while the node takes ReadStream; shared likewise. */
    private final ReadStreams readStreams;
    /** The partition map epoch this view stamps its calls with, if {@link #fenced}. */
    private final long epoch;
    private final boolean fenced;

    public RemoteShardClient(ManagedChannel channel) {
        this(channel, null);
    }

    /**
     * As {@link #RemoteShardClient(ManagedChannel)}, with the node's read streams spread over
     * connections of their own that {@code readChannels} opens (to the same node, closed with this
     * client), so the node answers them on several network threads ({@link ReadStreams}).
     */
    public RemoteShardClient(ManagedChannel channel, Supplier<ManagedChannel> readChannels) {
        this(channel, ShardGrpc.newFutureStub(channel), 0, 0, true, new AtomicBoolean(true), new AtomicBoolean(true), new AtomicBoolean(true),
                new ReadStreams(channel, readChannels), 0, false);
    }

    private RemoteShardClient(ManagedChannel channel, ShardGrpc.ShardFutureStub stub, long readTimeoutMillis, long writeTimeoutMillis,
            boolean ownsChannel, AtomicBoolean batches, AtomicBoolean streams, AtomicBoolean idWrites, ReadStreams readStreams, long epoch,
            boolean fenced) {
        this.channel = channel;
        this.batches = batches;
        this.streams = streams;
        this.idWrites = idWrites;
        this.readStreams = readStreams;
        this.epoch = epoch;
        this.fenced = fenced;
        this.stub = stub;
        this.readTimeoutMillis = readTimeoutMillis;
        this.writeTimeoutMillis = writeTimeoutMillis;
        this.ownsChannel = ownsChannel;
    }

    /**
     * The same node for a cluster router: calls stamped with the partition map's epoch and
     * bounded by a timeout (a client's shorter deadline still wins through the gRPC Context):
     * short for reads, so a hung replica fails over instead of holding the request; longer for
     * writes, which must not fail for being large on a busy node. Closing the view leaves the
     * channel open.
     */
    public RemoteShardClient atEpoch(long epoch, long readTimeoutMillis, long writeTimeoutMillis) {
        return new RemoteShardClient(channel, ShardGrpc.newFutureStub(channel).withInterceptors(ShardEpochs.stamp(epoch)),
                readTimeoutMillis, writeTimeoutMillis, false, batches, streams, idWrites, readStreams, epoch, true);
    }

    public ManagedChannel channel() {
        return channel;
    }

    /**
     * A blocking stub for the node's control service, whose calls wait for the channel to be
     * ready (up to their deadline) rather than fail at once. A channel backing off from earlier
     * failures reconnects first: a node restarted since this router last reached it (a node
     * drained while down and added again, say) may get no other call to wake the channel for
     * minutes, and a control call would fail on the old connection's error meanwhile.
     */
    public ShardControlGrpc.ShardControlBlockingStub control() {
        if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
            channel.resetConnectBackoff();
        }
        return ShardControlGrpc.newBlockingStub(channel).withWaitForReady();
    }

    private ShardGrpc.ShardFutureStub stub() {
        return stub(writeTimeoutMillis);
    }

    private ShardGrpc.ShardFutureStub stub(long timeoutMillis) {
        return timeoutMillis > 0 ? stub.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS) : stub;
    }

    private ShardGrpc.ShardFutureStub readStub() {
        return readTimeoutMillis > 0 ? stub.withDeadlineAfter(readTimeoutMillis, TimeUnit.MILLISECONDS) : stub;
    }

    @Override
    public CompletableFuture<Found[]> probe(String c, long[] gens, int table, long[] fps, int maxDistance) {
        ShardProbeRequest.Builder b = ShardProbeRequest.newBuilder().setCollection(c).setTable(table).setMaxDistance(maxDistance);
        addAll(gens, b::addGenerations);
        addAll(fps, b::addFingerprints);
        return adapt(watched(readStub().probe(b.build())), RemoteShardClient::found);
    }

    static Found[] found(ShardProbeResponse r) {
        Found[] out = new Found[r.getMatchesCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = new Found(unboxed(r.getMatches(i).getFingerprintsList()), unboxed(r.getMatches(i).getGenerationsList()));
        }
        return out;
    }

    @Override
    public CompletableFuture<Integer> bucketAdd(String c, long gen, int table, long[] fps, boolean newFingerprints) {
        return adapt(watched(stub().bucketAdd(bucketRequest(c, gen, table, fps).toBuilder().setNewFingerprints(newFingerprints).build())),
                r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<Found[][]> probeMany(String c, long[] gens, int[] tables, long[][] fps, int[] maxDistances) {
        if (!batches.get()) {
            return ShardClient.super.probeMany(c, gens, tables, fps, maxDistances);
        }
        return orSingly(probeMany(shared -> probeManyRequest(c, gens, tables, fps, maxDistances, shared), sameInEveryPart(fps))
                        .thenApply(r -> FlatAnswers.parts(r, fps)),
                () -> ShardClient.super.probeMany(c, gens, tables, fps, maxDistances));
    }

    @Override
    public CompletableFuture<Probed> probeResolving(String c, long[] gens, int[] tables, long[][] fps, int[] maxDistances,
            byte[] resolvePartitions, int limit, long[] flips, int nearest) {
        if (!batches.get()) {
            return ShardClient.super.probeResolving(c, gens, tables, fps, maxDistances, resolvePartitions, limit, flips, nearest);
        }
        ByteString partitions = ByteString.copyFrom(resolvePartitions);
        return orSingly(probeMany(shared -> withFlips(probeManyRequest(c, gens, tables, fps, maxDistances, shared), flips)
                        .setResolvePartitions(partitions).setIdLimit(limit).setResolveNearest(nearest), sameInEveryPart(fps)).thenApply(r -> new Probed(FlatAnswers.parts(r, fps),
                        new Found(unboxed(r.getResolved().getFingerprintsList()), unboxed(r.getResolved().getGenerationsList())), FlatAnswers.resolvedIds(r))),
                () -> ShardClient.super.probeResolving(c, gens, tables, fps, maxDistances, resolvePartitions, limit, flips, nearest));
    }

    /** Sets each part's flip (0, the default, stays unset). */
    private static ShardProbeManyRequest.Builder withFlips(ShardProbeManyRequest.Builder b, long[] flips) {
        for (int i = 0; i < flips.length; i++) {
            if (flips[i] != 0) {
                b.getPartsBuilder(i).setFlip(flips[i]);
            }
        }
        return b;
    }

    /**
     * ProbeMany on a read stream, its fingerprints sent once if {@code shared} (every part probes
     * the same ones); as the unary call with every part's own, which any node version reads.
     *
     * @param request the request, with the parts' fingerprints only in the first if given true
     */
    private CompletableFuture<ShardProbeManyResponse> probeMany(Function<Boolean, ShardProbeManyRequest.Builder> request,
            boolean shared) {
        Supplier<CompletableFuture<ShardProbeManyResponse>> unary = () -> adapt(watched(readStub().probeMany(request.apply(false).build())),
                Function.identity());
        if (!readStreams.supported()) {
            return unary.get();
        }
        return read(ShardReadRequest.newBuilder().setProbeMany(request.apply(shared)), ShardReadAnswer::getProbeMany, unary);
    }

    /** Whether every part probes the same fingerprints, as a query's four tables at distance up to 3 on one node do. */
    private static boolean sameInEveryPart(long[][] fps) {
        for (int i = 1; i < fps.length; i++) {
            if (fps[i] != fps[0] && !Arrays.equals(fps[i], fps[0])) {
                return false;
            }
        }
        return fps.length > 1;
    }

    /**
     * A read as the next request on one of the node's read streams. Where the stream fails the
     * request UNAVAILABLE or CANCELLED (the stream broke, or a stopping node reset it; the node may
     * be back, or gRPC's retries reach it, and a node that is gone answers the unary call
     * UNAVAILABLE, which fails over) or UNIMPLEMENTED (a node of an older version: every later
     * read goes unary too), the read goes as its unary call instead, so it fails or succeeds as
     * that would: a read changes nothing, so asking twice is safe. A failure the node answered (UNAVAILABLE while it catches up,
     * INVALID_ARGUMENT, a stale epoch) is the read's, as from the unary call.
     */
    private <T> CompletableFuture<T> read(ShardReadRequest.Builder read, Function<ShardReadAnswer, T> answer, Supplier<CompletableFuture<T>> unary) {
        if (!readStreams.supported()) {
            return unary.get();
        }
        Context context = Context.current();
        return readStreams.send(read.setEpoch(epoch).setFenced(fenced), readTimeoutMillis).handle((a, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(answer.apply(a));
            }
            io.grpc.Status.Code code = io.grpc.Status.fromThrowable(failure).getCode();
            if (Fanout.cause(failure) instanceof ReadStream.Answered) {
                return CompletableFuture.<T>failedFuture(failure);
            }
            if (code == io.grpc.Status.Code.UNIMPLEMENTED) {
                readStreams.unsupported();
            } else if (code == io.grpc.Status.Code.UNAVAILABLE || code == io.grpc.Status.Code.CANCELLED) {
                readStreams.resetConnectBackoff();
            } else {
                return CompletableFuture.<T>failedFuture(failure);
            }
            return inContext(context, unary);
        }).thenCompose(Function.identity());
    }

    /** The ProbeMany request; with {@code shared}, the fingerprints only in the first part (all parts probe them). */
    private static ShardProbeManyRequest.Builder probeManyRequest(String c, long[] gens, int[] tables, long[][] fps, int[] maxDistances,
            boolean shared) {
        ShardProbeManyRequest.Builder b = ShardProbeManyRequest.newBuilder().setCollection(c).setFlat(true).setSharedFingerprints(shared);
        addAll(gens, b::addGenerations);
        for (int i = 0; i < tables.length; i++) {
            ShardProbePart.Builder part = b.addPartsBuilder().setTable(tables[i]).setMaxDistance(maxDistances[i]);
            if (i == 0 || !shared) {
                addAll(fps[i], part::addFingerprints);
            }
        }
        return b;
    }

    @Override
    public CompletableFuture<Integer> bucketAddMany(String c, long gen, int[] tables, long[][] fps, boolean[] newFingerprints) {
        WriteBatch batch = WriteBatch.current();
        if (batch != null) {
            return batch.bucketAddMany(this, c, gen, tables, fps, newFingerprints);
        }
        if (!batches.get()) {
            return ShardClient.super.bucketAddMany(c, gen, tables, fps, newFingerprints);
        }
        BucketStreams bulk = BucketStreams.current();
        if (bulk != null && streams.get()) {
            return streamed(bulk, c, gen, tables, fps, newFingerprints);
        }
        return unaryBucketAddMany(c, gen, tables, fps, newFingerprints);
    }

    /**
     * The least rate, in bucket appends a second, at which a node must apply a BucketAddMany
     * call or bulk window before the write counts as failed. The write timeout is sized for a
     * unary write of at most 10,000 documents; a bulk load's window holds up to 2^20
     * fingerprints (BulkAppends), 4 appends each, 2.8 million for each node of three at R=2,
     * which three nodes on one 2-core host applied in 2-23 s (120,000 appends a second at the
     * slowest, as the collection outgrew its sizing and its buckets spilled into overflow
     * pages): bounded by the write timeout alone, a window timed out on both replicas and a
     * 10M load failed after 4M. A write gets the write timeout, or the time its appends take at
     * this rate if longer (112 s for such a window): 4.8 times slower than the slowest seen.
     */
    private static final long MIN_APPENDS_PER_SECOND = 25_000;

    /** The timeout of a write of {@code appends} bucket appends: {@code writeTimeoutMillis}, longer for a large one (0 stays none). */
    private static long bucketWriteTimeoutMillis(long writeTimeoutMillis, long appends) {
        return writeTimeoutMillis <= 0 ? writeTimeoutMillis : Math.max(writeTimeoutMillis, appends * 1_000 / MIN_APPENDS_PER_SECOND);
    }

    private static long appends(long[][] fps) {
        long n = 0;
        for (long[] run : fps) {
            n += run.length;
        }
        return n;
    }

    private CompletableFuture<Integer> unaryBucketAddMany(String c, long gen, int[] tables, long[][] fps, boolean[] newFingerprints) {
        ShardGrpc.ShardFutureStub bounded = stub(bucketWriteTimeoutMillis(writeTimeoutMillis, appends(fps)));
        return orSingly(adapt(watched(bounded.bucketAddMany(bucketAddManyRequest(c, gen, tables, fps, newFingerprints))), r -> (int) r.getChanged()),
                () -> ShardClient.super.bucketAddMany(c, gen, tables, fps, newFingerprints));
    }

    /**
     * BucketAddMany as the next window of the bulk load's stream to this node. Where the stream
     * fails the window UNAVAILABLE (the call broke, the node may come back) or UNIMPLEMENTED (a
     * node of an older version: every later window goes unary too), the window goes as the unary
     * call instead, so it fails or succeeds as that would; after UNAVAILABLE every part is sent
     * checked, since the node may have applied the window before the call broke.
     */
    private CompletableFuture<Integer> streamed(BucketStreams bulk, String c, long gen, int[] tables, long[][] fps, boolean[] newFingerprints) {
        Context context = Context.current();
        return bulk.send(channel, bucketAddManyRequest(c, gen, tables, fps, newFingerprints), epoch, fenced,
                        bucketWriteTimeoutMillis(writeTimeoutMillis, appends(fps)))
                .handle((changed, failure) -> {
                    if (failure == null) {
                        return CompletableFuture.completedFuture((int) (long) changed);
                    }
                    io.grpc.Status.Code code = io.grpc.Status.fromThrowable(failure).getCode();
                    if (code == io.grpc.Status.Code.UNIMPLEMENTED) {
                        streams.set(false);
                        return inContext(context, () -> unaryBucketAddMany(c, gen, tables, fps, newFingerprints));
                    }
                    if (code == io.grpc.Status.Code.UNAVAILABLE) {
                        channel.resetConnectBackoff();
                        return inContext(context, () -> unaryBucketAddMany(c, gen, tables, fps, new boolean[tables.length]));
                    }
                    return CompletableFuture.<Integer>failedFuture(failure);
                }).thenCompose(Function.identity());
    }

    /** Starts a call on a network thread in the Context of the request it serves (its deadline). */
    private static <T> T inContext(Context context, Supplier<T> call) {
        Context previous = context.attach();
        try {
            return call.get();
        } finally {
            context.detach(previous);
        }
    }

    private static ShardBucketAddManyRequest bucketAddManyRequest(String c, long gen, int[] tables, long[][] fps, boolean[] newFingerprints) {
        ShardBucketAddManyRequest.Builder b = ShardBucketAddManyRequest.newBuilder().setCollection(c).setGeneration(gen);
        for (int i = 0; i < tables.length; i++) {
            ShardBucketPart.Builder part = b.addPartsBuilder().setTable(tables[i]).setNewFingerprints(newFingerprints[i]);
            addAll(fps[i], part::addFingerprints);
        }
        return b.build();
    }

    /**
     * A node of an older version answers the batched calls UNIMPLEMENTED: then this call, and
     * every later one to the node, goes as the single calls it batches (a rolling upgrade).
     */
    private <T> CompletableFuture<T> orSingly(CompletableFuture<T> batched, Supplier<CompletableFuture<T>> singly) {
        return batched.handle((value, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(value);
            }
            if (io.grpc.Status.fromThrowable(failure).getCode() == io.grpc.Status.Code.UNIMPLEMENTED) {
                batches.set(false);
                return singly.get();
            }
            return CompletableFuture.<T>failedFuture(failure);
        }).thenCompose(Function.identity());
    }

    @Override
    public CompletableFuture<Integer> bucketRemove(String c, long gen, int table, long[] fps) {
        return adapt(watched(stub().bucketRemove(bucketRequest(c, gen, table, fps))), r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<Previous> bindIds(String c, long gen, String[] ids, long[] fps) {
        WriteBatch batch = WriteBatch.current();
        if (batch != null) {
            return batch.bindIds(this, c, gen, ids, fps);
        }
        return adapt(watched(stub().bindIds(idsRequest(c, gen, ids, fps))), RemoteShardClient::previous);
    }

    @Override
    public CompletableFuture<Previous> unbindIds(String c, String[] ids) {
        return adapt(watched(stub().unbindIds(idsRequest(c, 0, ids, new long[0]))), RemoteShardClient::previous);
    }

    @Override
    public CompletableFuture<boolean[]> attachIds(String c, long gen, long[] fps, String[] ids) {
        WriteBatch batch = WriteBatch.current();
        if (batch != null) {
            return batch.attachIds(this, c, gen, fps, ids);
        }
        return adapt(watched(stub().attachIds(idsRequest(c, gen, ids, fps))), r -> flags(r.getFlagsList()));
    }

    /**
     * One WriteIds call, each part answered from it. A node of an older version answers
     * UNIMPLEMENTED: then this write, and every later one to the node, goes as BindIds and
     * AttachIds (a rolling upgrade).
     */
    @Override
    public IdWrites writeIds(String c, long gen, String[] bindIds, long[] bindFps, String[] attachIds, long[] attachFps) {
        if (!idWrites.get()) {
            return ShardClient.super.writeIds(c, gen, bindIds, bindFps, attachIds, attachFps);
        }
        boolean asBind = attachIds == bindIds && attachFps == bindFps;
        ShardWriteIdsRequest.Builder b = ShardWriteIdsRequest.newBuilder().setCollection(c).setGeneration(gen).setAttachAsBind(asBind)
                .addAllBindIds(Arrays.asList(bindIds));
        addAll(bindFps, b::addBindFingerprints);
        if (!asBind) {
            b.addAllAttachIds(Arrays.asList(attachIds));
            addAll(attachFps, b::addAttachFingerprints);
        }
        Context context = Context.current();
        CompletableFuture<IdWrites> answered = adapt(watched(stub().writeIds(b.build())), r -> r).handle((r, failure) -> {
            if (failure == null) {
                return new IdWrites(CompletableFuture.completedFuture(previous(r.getBound())), CompletableFuture.completedFuture(flags(r.getAttachedList())));
            }
            if (io.grpc.Status.fromThrowable(failure).getCode() == io.grpc.Status.Code.UNIMPLEMENTED) {
                idWrites.set(false);
                return inContext(context, () -> ShardClient.super.writeIds(c, gen, bindIds, bindFps, attachIds, attachFps));
            }
            return new IdWrites(CompletableFuture.failedFuture(failure), CompletableFuture.failedFuture(failure));
        });
        return new IdWrites(answered.thenCompose(IdWrites::bound), answered.thenCompose(IdWrites::attached));
    }

    @Override
    public CompletableFuture<boolean[]> detachIds(String c, long gen, long[] fps, String[] ids) {
        return adapt(watched(stub().detachIds(idsRequest(c, gen, ids, fps))), r -> flags(r.getFlagsList()));
    }

    @Override
    public CompletableFuture<Ids[]> resolveIds(String c, long[] gens, long[] fps, int limit) {
        ShardResolveRequest.Builder b = ShardResolveRequest.newBuilder().setCollection(c).setLimit(limit).setFlat(true);
        addAll(fps, b::addFingerprints);
        addAll(gens, b::addGenerations);
        ShardResolveRequest request = b.build();
        return read(ShardReadRequest.newBuilder().setResolveIds(request), a -> FlatAnswers.ids(a.getResolveIds(), fps.length),
                () -> adapt(watched(readStub().resolveIds(request)), r -> FlatAnswers.ids(r, fps.length)));
    }

    static Ids[] ids(List<IdList> lists) {
        Ids[] out = new Ids[lists.size()];
        for (int i = 0; i < out.length; i++) {
            IdList ids = lists.get(i);
            out[i] = new Ids(ids.getIdsList().toArray(new String[0]), ids.getTotal());
        }
        return out;
    }

    @Override
    public CompletableFuture<ShardStats> stats(String c, long minGeneration) {
        return adapt(watched(readStub().stats(ShardStatsRequest.newBuilder().setCollection(c).setMinGeneration(minGeneration).build())),
                r -> new ShardStats(r.getDocuments(), r.getFingerprints(), r.getBucketEntries(), r.getTableBytes(), r.getDocBytes()));
    }

    @Override
    public CompletableFuture<Integer> expireBefore(String c, long minGeneration) {
        return adapt(watched(stub().expireGenerations(ShardExpireRequest.newBuilder().setCollection(c).setMinGeneration(minGeneration).build())),
                r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<Integer> prepareGeneration(String c, long generation, boolean evenIfUnused) {
        return adapt(watched(stub().prepareGeneration(ShardPrepareRequest.newBuilder().setCollection(c).setGeneration(generation)
                        .setEvenIfUnused(evenIfUnused).build())),
                r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<Integer> putTexts(String c, long gen, String[] ids, String[] texts) {
        WriteBatch batch = WriteBatch.current();
        if (batch != null) {
            return batch.putTexts(this, c, gen, ids, texts);
        }
        return adapt(watched(stub().putTexts(ShardTextsRequest.newBuilder().setCollection(c).setGeneration(gen)
                .addAllIds(Arrays.asList(ids)).addAllTexts(Arrays.asList(texts)).build())), r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<Integer> dropTexts(String c, long gen, String[] ids) {
        return adapt(watched(stub().dropTexts(ShardTextsRequest.newBuilder().setCollection(c).setGeneration(gen)
                .addAllIds(Arrays.asList(ids)).build())), r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<Bound> lookupIds(String c, long[] gens, String[] ids) {
        return adapt(watched(readStub().lookupIds(ShardLookupIdsRequest.newBuilder().setCollection(c).addAllGenerations(boxed(gens))
                .addAllIds(Arrays.asList(ids)).build())), r -> {
            boolean[] found = new boolean[r.getFoundCount()];
            long[] fps = new long[found.length];
            for (int i = 0; i < found.length; i++) {
                found[i] = r.getFound(i);
                fps[i] = r.getFingerprints(i);
            }
            return new Bound(found, fps);
        });
    }

    @Override
    public CompletableFuture<ExportIdsPage> exportIds(String c, long[] gens, byte[] partitions, long generation, int mapGeneration, int segment,
            int limit) {
        return adapt(watched(readStub().exportIds(ShardExportIdsRequest.newBuilder().setCollection(c).addAllGenerations(boxed(gens))
                .setPartitions(ByteString.copyFrom(partitions)).setGeneration(generation).setMapGeneration(mapGeneration).setSegment(segment)
                .setLimit(limit).build())), r -> {
            long[] fps = new long[r.getFingerprintsCount()];
            for (int i = 0; i < fps.length; i++) {
                fps[i] = r.getFingerprints(i);
            }
            return new ExportIdsPage(r.getIdsList().toArray(new String[0]), fps, r.getDone(), r.getGeneration(), r.getMapGeneration(), r.getSegment());
        });
    }

    @Override
    public CompletableFuture<String[]> getTexts(String c, long[] gens, String[] ids) {
        return adapt(watched(readStub().getTexts(ShardTextsRequest.newBuilder().setCollection(c).addAllGenerations(boxed(gens))
                .addAllIds(Arrays.asList(ids)).build())), r -> {
            String[] out = new String[r.getTextsCount()];
            for (int i = 0; i < out.length; i++) {
                out[i] = r.getPresent(i) ? r.getTexts(i) : null;
            }
            return out;
        });
    }

    @Override
    public CompletableFuture<Found> lookupContent(String c, long[] gens, byte[][] hashes) {
        ShardContentRequest.Builder b = ShardContentRequest.newBuilder().setCollection(c).addAllGenerations(boxed(gens));
        for (byte[] h : hashes) {
            b.addContentHashes(com.google.protobuf.ByteString.copyFrom(h));
        }
        return adapt(watched(readStub().lookupContent(b.build())), r -> new Found(unboxed(r.getFingerprintsList()), unboxed(r.getGenerationsList())));
    }

    @Override
    public CompletableFuture<Integer> recordContent(String c, long gen, byte[][] hashes, long[] fps) {
        ShardContentRequest.Builder b = ShardContentRequest.newBuilder().setCollection(c).setGeneration(gen).addAllFingerprints(boxed(fps));
        for (byte[] h : hashes) {
            b.addContentHashes(com.google.protobuf.ByteString.copyFrom(h));
        }
        return adapt(watched(stub().recordContent(b.build())), r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<boolean[]> checkUrls(String job, byte[][] hashes, long now, long expiresAt, boolean checkOnly) {
        ShardUrlsRequest.Builder b = ShardUrlsRequest.newBuilder().setJob(job).setNowSeconds(now)
                .setExpiresAtSeconds(expiresAt).setCheckOnly(checkOnly);
        for (byte[] h : hashes) {
            b.addUrlHashes(com.google.protobuf.ByteString.copyFrom(h));
        }
        return adapt(watched(stub().checkUrls(b.build())), r -> flags(r.getFlagsList()));
    }

    @Override
    public CompletableFuture<Long> sweepUrls(long now) {
        return adapt(watched(stub().sweepUrls(ShardSweepUrlsRequest.newBuilder().setNowSeconds(now).build())), r -> r.getChanged());
    }

    @Override
    public CompletableFuture<Boolean> dropUrlJob(String job) {
        return adapt(watched(stub().dropUrlJob(ShardDropUrlJobRequest.newBuilder().setJob(job).build())), r -> r.getChanged() > 0);
    }

    @Override
    public CompletableFuture<Granted> lockBuckets(String c, int[] keys, long token, int leaseMillis, int waitMillis) {
        return adapt(watched(stub().lockBuckets(ShardLockRequest.newBuilder().setCollection(c).addAllBucketKeys(boxed(keys))
                .setToken(token).setLeaseMs(leaseMillis).setWaitMs(waitMillis).build())), r -> new Granted(r.getStamp(),
                r.getPendingList().stream().map(i -> new Granted.Intent(i.getToken(), i.getStamp(), i.getDocs().toByteArray())).toList()));
    }

    @Override
    public CompletableFuture<Integer> unlockBuckets(String c, int[] keys, long token, long stamp, boolean keepPending) {
        return adapt(watched(stub().unlockBuckets(ShardUnlockRequest.newBuilder().setCollection(c).addAllBucketKeys(boxed(keys))
                .setToken(token).setStamp(stamp).setKeepPending(keepPending).build())), r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<Integer> recordIntent(String c, int[] keys, long token, long stamp, byte[] docs) {
        return adapt(watched(stub().recordIntent(ShardIntentRequest.newBuilder().setCollection(c).addAllBucketKeys(boxed(keys))
                .setToken(token).setStamp(stamp).setDocs(UnsafeByteOperations.unsafeWrap(docs)).build())), r -> (int) r.getChanged());
    }

    @Override
    public CompletableFuture<Integer> settleIntents(String c, long[] tokens) {
        return adapt(watched(stub().settleIntents(ShardSettleRequest.newBuilder().setCollection(c)
                .addAllTokens(Arrays.stream(tokens).boxed().toList()).build())), r -> (int) r.getChanged());
    }

    private static List<Integer> boxed(int[] keys) {
        return Arrays.stream(keys).boxed().toList();
    }

    @Override
    public void close() {
        if (!ownsChannel) {
            return;
        }
        readStreams.close();
        channel.shutdown();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ShardBucketRequest bucketRequest(String c, long gen, int table, long[] fps) {
        return ShardBucketRequest.newBuilder().setCollection(c).setGeneration(gen).setTable(table).addAllFingerprints(boxed(fps)).build();
    }

    private static ShardIdsRequest idsRequest(String c, long gen, String[] ids, long[] fps) {
        return ShardIdsRequest.newBuilder().setCollection(c).setGeneration(gen).addAllIds(Arrays.asList(ids)).addAllFingerprints(boxed(fps)).build();
    }

    private static Previous previous(ShardPreviousResponse r) {
        return new Previous(flags(r.getPresentList()), unboxed(r.getPreviousList()), unboxed(r.getPreviousGenerationList()));
    }

    private static boolean[] flags(List<Boolean> list) {
        boolean[] out = new boolean[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(i);
        }
        return out;
    }

    private static List<Long> boxed(long[] fps) {
        return Arrays.stream(fps).boxed().toList();
    }

    /** Appends each value with a builder's primitive adder: no boxing, unlike addAll of a List<Long>. */
    private static void addAll(long[] values, LongConsumer add) {
        for (long v : values) {
            add.accept(v);
        }
    }

    /** A repeated 64-bit field as an array; protobuf's own lists are read without boxing. */
    static long[] unboxed(List<Long> list) {
        long[] out = new long[list.size()];
        if (list instanceof Internal.LongList primitive) {
            for (int i = 0; i < out.length; i++) {
                out[i] = primitive.getLong(i);
            }
            return out;
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(i);
        }
        return out;
    }

    private static <R, T> CompletableFuture<T> adapt(ListenableFuture<R> future, Function<R, T> convert) {
        CompletableFuture<T> out = new CompletableFuture<>();
        Futures.addCallback(future, new FutureCallback<>() {
            @Override
            public void onSuccess(R result) {
                try {
                    out.complete(convert.apply(result));
                } catch (RuntimeException e) {
                    out.completeExceptionally(e);
                }
            }

            @Override
            public void onFailure(Throwable t) {
                out.completeExceptionally(t);
            }
        }, MoreExecutors.directExecutor());
        return out;
    }

    /** After UNAVAILABLE, reconnect at the next call instead of waiting out the channels' backoff (the read streams' own too). */
    private <R> ListenableFuture<R> watched(ListenableFuture<R> call) {
        Futures.addCallback(call, new FutureCallback<>() {
            @Override
            public void onSuccess(R result) {
            }

            @Override
            public void onFailure(Throwable t) {
                if (io.grpc.Status.fromThrowable(t).getCode() == io.grpc.Status.Code.UNAVAILABLE) {
                    readStreams.resetConnectBackoff();
                }
            }
        }, MoreExecutors.directExecutor());
        return call;
    }
}
