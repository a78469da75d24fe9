package io.simdex.client;

import com.google.protobuf.UInt32Value;
import io.grpc.Channel;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DeleteCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.DeleteResponse;
import io.simdex.proto.v1.ExportRequest;
import io.simdex.proto.v1.ExportResponse;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.ListCollectionsRequest;
import io.simdex.proto.v1.UpdateCollectionRequest;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.SimdexGrpc.SimdexBlockingStub;
import io.simdex.proto.v1.StatsRequest;
import java.util.ArrayList;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A typed client of one simdex cluster (a router, or a single server).
 *
 * <p>Every call carries a deadline from {@link ClientOptions}. Methods taking a list longer
 * than {@link ClientOptions#maxBatch()} send it as several calls, one after another, and
 * return the results concatenated in input order; if a later call fails, the earlier calls'
 * writes stay done. An empty list makes no call and returns an empty result. A null
 * collection name means the server's default collection.
 *
 * <p>RPC failures throw {@link io.grpc.StatusRuntimeException}; the codes and which of them
 * are safe to retry are listed in {@code simdex.proto}. Thread-safe.
 */
public final class SimdexClient implements AutoCloseable {
    /** As a maxDistance: use the collection's max_distance setting. */
    public static final int COLLECTION_DISTANCE = -1;
    /** Documents an Export page holds at most (the server's bound). */
    public static final int MAX_PAGE = 10_000;

    private final Channel channel;
    /** Null for a channel the caller owns. */
    private final OwnedChannel owned;
    private final SimdexBlockingStub blocking;
    private final ClientOptions options;

    private SimdexClient(Channel channel, OwnedChannel owned, ClientOptions options) {
        if (channel == null || options == null) {
            throw new IllegalArgumentException("channel and options are required");
        }
        this.channel = options.authorized(channel);
        this.owned = owned;
        this.blocking = SimdexGrpc.newBlockingStub(this.channel);
        this.options = options;
    }

    /** A client with default options over a plaintext channel to {@code target} ("host:port"). */
    public static SimdexClient connect(String target) {
        return connect(target, ClientOptions.DEFAULTS);
    }

    /**
     * A client over a channel of its own to {@code target}: plaintext, or TLS when
     * {@link ClientOptions#tls()} is set, its files read again when they change
     * ({@link ClientTls#reloading}); {@link #close()} shuts the channel down.
     */
    public static SimdexClient connect(String target, ClientOptions options) {
        OwnedChannel ch = OwnedChannel.open(target, options);
        return new SimdexClient(ch.channel, ch, options);
    }

    /** A client with default options over a channel the caller owns (and closes). */
    public static SimdexClient over(Channel channel) {
        return over(channel, ClientOptions.DEFAULTS);
    }

    /** A client over a channel the caller owns (its options' token is sent; their TLS is not used): {@link #close()} leaves it open. */
    public static SimdexClient over(Channel channel, ClientOptions options) {
        return new SimdexClient(channel, null, options);
    }

    public ClientOptions options() {
        return options;
    }

    /** Creates a collection; true when it was created, false when it existed already. */
    public boolean createCollection(String name) {
        return createCollection(name, io.simdex.proto.v1.CollectionSettings.getDefaultInstance());
    }

    /**
     * Creates {@code name} with {@code settings} (unset fields take the server's defaults);
     * false if it existed with the same settings. ALREADY_EXISTS if it exists with others.
     */
    public boolean createCollection(String name, io.simdex.proto.v1.CollectionSettings settings) {
        return stub().createCollection(CreateCollectionRequest.newBuilder().setName(name).setSettings(settings).build()).getCreated();
    }

    /**
     * Deletes {@code name} and drops its documents on every shard; false if it did not exist.
     * Safe to retry. INVALID_ARGUMENT for "default", which always exists.
     */
    public boolean deleteCollection(String name) {
        return stub().deleteCollection(DeleteCollectionRequest.newBuilder().setName(name).build()).getExisted();
    }

    /**
     * Changes what {@code changes} sets of collection {@code name}'s settings (retention window,
     * default distance, verification thresholds; its own name field is not read) and returns the
     * collection as it now is. INVALID_ARGUMENT for a bad value or a change that would hide
     * stored documents, NOT_FOUND for a collection that does not exist. Safe to retry.
     */
    public CollectionInfo updateCollection(String name, UpdateCollectionRequest changes) {
        return ProtoMapper.fromProto(stub().updateCollection(changes.toBuilder().setName(name).build()).getCollection());
    }

    public List<CollectionInfo> listCollections() {
        List<CollectionInfo> out = new ArrayList<>();
        for (var info : stub().listCollections(ListCollectionsRequest.getDefaultInstance()).getCollectionsList()) {
            out.add(ProtoMapper.fromProto(info));
        }
        return out;
    }

    /** Stores {@code docs}; returns how many were written. An existing id moves to its new fingerprint. */
    public long insert(String collection, List<Doc> docs) {
        long inserted = 0;
        for (List<Doc> batch : Batches.split(docs, options.maxBatch())) {
            InsertRequest.Builder req = InsertRequest.newBuilder().setCollection(name(collection));
            batch.forEach(d -> req.addDocuments(ProtoMapper.toProto(d)));
            inserted += Integer.toUnsignedLong(stub().insert(req.build()).getInserted());
        }
        return inserted;
    }

    /** For each fingerprint, the stored documents within {@code maxDistance}; see {@link #queryProbes}. */
    public List<ProbeMatches> query(String collection, List<Long> fingerprints, int maxDistance, int limit) {
        return queryProbes(collection, fingerprints.stream().map(Probe::of).toList(), maxDistance, limit);
    }

    /** For each text, the stored documents within {@code maxDistance} of its fingerprint. */
    public List<ProbeMatches> queryTexts(String collection, List<String> texts, int maxDistance, int limit) {
        return queryProbes(collection, texts.stream().map(Probe::ofText).toList(), maxDistance, limit);
    }

    /**
     * One result per probe, in probe order, each listing the stored documents within
     * {@code maxDistance} (the server accepts 0..3), nearest first.
     *
     * @param limit most matches per probe, 1..10,000; 0 means the server's default, 100
     * @param maxDistance 0..3, or {@link #COLLECTION_DISTANCE} for the collection's own
     * @throws IllegalArgumentException when maxDistance (other than COLLECTION_DISTANCE) or limit is negative
     */
    public List<ProbeMatches> queryProbes(String collection, List<Probe> probes, int maxDistance, int limit) {
        requireDistance(maxDistance);
        requireNonNegative("limit", limit);
        return inBatches(probes, batch -> {
            QueryRequest.Builder req = QueryRequest.newBuilder()
                    .setCollection(name(collection)).setLimit(limit);
            if (maxDistance != COLLECTION_DISTANCE) {
                req.setMaxDistance(UInt32Value.of(maxDistance));
            }
            batch.forEach(p -> req.addProbes(ProtoMapper.toProto(p)));
            return stub().query(req.build()).getResultsList().stream().map(ProtoMapper::fromProto).toList();
        });
    }

    /**
     * Check-and-insert in order: each document is stored only if nothing within
     * {@code maxDistance} is stored already, including documents earlier in {@code docs}
     * (which holds across split calls too, since they run in order).
     *
     * @param maxDistance 0..3, or {@link #COLLECTION_DISTANCE} for the collection's own
     * @throws IllegalArgumentException when maxDistance (other than COLLECTION_DISTANCE) is negative
     */
    public List<DedupDecision> dedup(String collection, List<Doc> docs, int maxDistance) {
        requireDistance(maxDistance);
        return inBatches(docs, batch -> {
            DedupRequest.Builder req = DedupRequest.newBuilder().setCollection(name(collection));
            if (maxDistance != COLLECTION_DISTANCE) {
                req.setMaxDistance(UInt32Value.of(maxDistance));
            }
            batch.forEach(d -> req.addDocuments(ProtoMapper.toProto(d)));
            return stub().dedup(req.build()).getResultsList().stream().map(ProtoMapper::fromProto).toList();
        });
    }

    /**
     * For each URL, whether the crawl job had not seen it; records them for {@code ttl} unless
     * {@code checkOnly} (a zero ttl means the server's default, 7 days). Split into calls of at
     * most the max batch size, in order, so a URL repeated across the list is new at most once.
     */
    public List<Boolean> checkUrls(String job, List<String> urls, Duration ttl, boolean checkOnly) {
        return checkUrls(job, urls, ttl, checkOnly, false);
    }

    /**
     * As {@link #checkUrls(String, List, Duration, boolean)}; with {@code canonical} the server
     * compares the URLs' canonical forms (lower-case scheme and host, no default port, fragment or
     * empty query, dot segments resolved, escapes normalised), and refuses a call with a URL that
     * is not absolute (INVALID_ARGUMENT, nothing recorded).
     */
    public List<Boolean> checkUrls(String job, List<String> urls, Duration ttl, boolean checkOnly, boolean canonical) {
        return inBatches(urls, batch -> stub().checkUrls(io.simdex.proto.v1.CheckUrlsRequest.newBuilder().setJob(job)
                .addAllUrls(batch).setTtlSeconds(ttl.toSeconds()).setCheckOnly(checkOnly).setCanonical(canonical).build()).getIsNewList());
    }

    /** The server's handling time per RPC method; {@code reset} starts its counting afresh. */
    public io.simdex.proto.v1.HandlingTimesResponse handlingTimes(boolean reset) {
        return stub().handlingTimes(io.simdex.proto.v1.HandlingTimesRequest.newBuilder().setReset(reset).build());
    }

    /** Forgets a crawl job's URL seen-set; true if it had any. */
    public boolean dropUrlJob(String job) {
        return stub().dropUrlJob(io.simdex.proto.v1.DropUrlJobRequest.newBuilder().setJob(job).build()).getExisted();
    }

    /** Removes documents by id; unknown ids are counted, not an error. */
    public DeleteCounts delete(String collection, List<String> ids) {
        DeleteCounts total = new DeleteCounts(0, 0);
        for (List<String> batch : Batches.split(ids, options.maxBatch())) {
            DeleteRequest req = DeleteRequest.newBuilder().setCollection(name(collection)).addAllIds(batch).build();
            DeleteResponse r = stub().delete(req);
            total = total.plus(new DeleteCounts(
                    Integer.toUnsignedLong(r.getDeleted()), Integer.toUnsignedLong(r.getNotFound())));
        }
        return total;
    }

    /**
     * Whether each id is stored and with which fingerprint, in order: a page fetched again can be
     * compared with what is stored under its URL. Unknown ids are answered, not an error.
     */
    public List<Stored> lookup(String collection, List<String> ids) {
        return inBatches(ids, batch -> stub().lookup(io.simdex.proto.v1.LookupRequest.newBuilder().setCollection(name(collection))
                .addAllIds(batch).build()).getResultsList().stream()
                .map(r -> new Stored(r.getId(), r.getFound() ? OptionalLong.of(r.getFingerprint()) : OptionalLong.empty())).toList());
    }

    /**
     * Every document of {@code collection} with its fingerprint, fetched {@code pageSize}
     * (1..10,000) at a time as the iterator is read (Export), ready for {@link #bulkLoader}: a
     * document not changed while it is read comes exactly once. Each page is a call with its
     * own deadline; a failed one throws its StatusRuntimeException from {@code hasNext}
     * (ABORTED: partitions moved, or the node read from left; export again from the start).
     */
    public Iterator<Doc> export(String collection, int pageSize) {
        if (pageSize < 1 || pageSize > MAX_PAGE) {
            throw new IllegalArgumentException("pageSize must be in 1.." + MAX_PAGE + ", was " + pageSize);
        }
        String name = name(collection);
        return new Iterator<>() {
            private List<Doc> page = List.of();
            private int next;
            private String cursor = "";
            private boolean last;

            @Override
            public boolean hasNext() {
                while (next == page.size() && !last) {
                    ExportResponse r = stub().export(ExportRequest.newBuilder().setCollection(name).setCursor(cursor).setPageSize(pageSize).build());
                    page = r.getDocumentsList().stream().map(d -> Doc.of(d.getId(), d.getFingerprint())).toList();
                    next = 0;
                    cursor = r.getNextCursor();
                    last = cursor.isEmpty();
                }
                return next < page.size();
            }

            @Override
            public Doc next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                return page.get(next++);
            }
        };
    }

    /** The fingerprint of each text, in order, as Insert would compute it. Stores nothing. */
    public List<Long> fingerprint(String collection, List<String> texts) {
        return inBatches(texts, batch -> stub()
                .fingerprint(FingerprintRequest.newBuilder().setCollection(name(collection)).addAllTexts(batch).build())
                .getFingerprintsList());
    }

    public CollectionStats stats(String collection) {
        return ProtoMapper.fromProto(stub().stats(StatsRequest.newBuilder().setCollection(name(collection)).build()));
    }

    /**
     * Opens a BulkLoad stream into {@code collection} that sends batches of {@code batchSize}
     * documents, under {@link ClientOptions#bulkLoadDeadline()}.
     *
     * @throws IllegalArgumentException when batchSize is not in 1..maxBatch
     */
    public BulkLoader bulkLoader(String collection, int batchSize) {
        if (batchSize < 1 || batchSize > options.maxBatch()) {
            throw new IllegalArgumentException(
                    "batchSize must be in 1.." + options.maxBatch() + ", was " + batchSize);
        }
        return new BulkLoader(SimdexGrpc.newStub(channel), name(collection), batchSize, options.bulkLoadDeadline());
    }

    /** Shuts down the channel if this client opened it, waiting up to 5 s for calls to finish. */
    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
    }

    /** A stub whose next call has the configured deadline, counted from now. */
    private SimdexBlockingStub stub() {
        return blocking.withDeadlineAfter(options.deadline().toNanos(), TimeUnit.NANOSECONDS);
    }

    private <T, R> List<R> inBatches(List<T> items, Function<List<T>, List<R>> call) {
        List<R> out = new ArrayList<>(items.size());
        for (List<T> batch : Batches.split(items, options.maxBatch())) {
            out.addAll(call.apply(batch));
        }
        return out;
    }

    private static String name(String collection) {
        return collection == null ? "" : collection;
    }

    private static void requireDistance(int maxDistance) {
        if (maxDistance != COLLECTION_DISTANCE) {
            requireNonNegative("maxDistance", maxDistance);
        }
    }

    private static void requireNonNegative(String name, int value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
    }
}
