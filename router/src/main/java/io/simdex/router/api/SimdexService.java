package io.simdex.router.api;

import com.google.protobuf.TextFormat;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.simdex.core.text.TextFingerprinter;
import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.CheckUrlsResponse;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.CreateCollectionResponse;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.DeleteCollectionRequest;
import io.simdex.proto.v1.DeleteCollectionResponse;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.ExportRequest;
import io.simdex.proto.v1.ExportResponse;
import io.simdex.proto.v1.LookupRequest;
import io.simdex.proto.v1.LookupResponse;
import io.simdex.proto.v1.DeleteResponse;
import io.simdex.proto.v1.DropUrlJobRequest;
import io.simdex.proto.v1.DropUrlJobResponse;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.FingerprintResponse;
import io.simdex.proto.v1.HandlingTimesRequest;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.InsertResponse;
import io.simdex.proto.v1.ListCollectionsRequest;
import io.simdex.proto.v1.ListCollectionsResponse;
import io.simdex.proto.v1.Match;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.QueryResult;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.StatsResponse;
import io.simdex.proto.v1.UpdateCollectionRequest;
import io.simdex.proto.v1.UpdateCollectionResponse;
import io.simdex.router.index.BulkAppends;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.index.ExportCursor;
import io.simdex.router.index.IndexView;
import io.simdex.router.index.Window;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.RequestMarks;
import io.simdex.router.shard.ShardEpochs;
import io.simdex.router.metrics.RequestOutcomes;
import io.simdex.router.shard.Bound;
import io.simdex.router.transport.HandlingTimes;
import io.simdex.server.store.NoRoomException;
import io.simdex.server.store.DiskSpace;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * The public {@code simdex.v1.Simdex} service. Every request is validated and every text
 * fingerprinted before the first write, so a rejected request changes nothing.
 */
public final class SimdexService extends SimdexGrpc.SimdexImplBase {
    private static final Logger LOG = Logger.getLogger(SimdexService.class.getName());

    /** What BulkLoad streams may hold back together: see BulkAppends. */
    private final java.util.concurrent.Semaphore bulkBudget = new java.util.concurrent.Semaphore(BulkAppends.SERVER_BUDGET);

    private final IndexView view;
    private final Catalog catalog;
    private final Clock clock;
    private final ConcurrentHashMap<String, Fingerprinting> fingerprinters = new ConcurrentHashMap<>();
    private final HandlingTimes handlingTimes = new HandlingTimes();
    private final RequestOutcomes outcomes = new RequestOutcomes();

    /** A URL stays seen this long when CheckUrls gives no ttl. */
    static final long DEFAULT_URL_TTL_SECONDS = 7 * 24 * 3600;

    /**
     * @param clock decides which time generations are live (retention) and when URLs expire: the
     *              process's own clock in one process, the nodes' agreed clock in a cluster
     *              ({@code ClusterClock}); tests pass a controllable one
     */
    public SimdexService(IndexRouter index, Catalog catalog, Clock clock) {
        this(IndexView.fixed(index), catalog, clock);
    }

    /** @param view the index for each request (a cluster's changes with its partition map) */
    public SimdexService(IndexView view, Catalog catalog, Clock clock) {
        this.view = view;
        this.catalog = catalog;
        this.clock = clock;
    }

    IndexRouter index() {
        return view.current();
    }

    /**
     * Drops, on every shard, the generations that have left their collection's retention window;
     * returns how many. Queries already ignore them: this returns their disk and memory. Also
     * drops the decision counts of collections deleted through other routers.
     */
    public int sweepExpired() {
        int dropped = 0;
        List<CollectionInfo> all = catalog.all();
        outcomes.retainOnly(all.stream().map(CollectionInfo::getName).collect(Collectors.toSet()));
        for (CollectionInfo c : all) {
            if (c.getSettings().getRetentionSeconds() > 0 && servable(c)) {
                dropped += index().expire(c.getName(), window(c.getSettings()));
            }
        }
        return dropped;
    }

    /** False, logged, for a catalog entry whose settings this server refuses: the sweeps skip it rather than fail for every collection. */
    private static boolean servable(CollectionInfo c) {
        String problem = CollectionSettingsRules.retentionProblem(c.getSettings());
        if (problem != null) {
            LOG.warning("collection '" + c.getName() + "' skipped: " + problem);
        }
        return problem == null;
    }

    /**
     * Creates, on every shard, each collection's store for its current generation and, when a
     * collection with retention is about to start a new generation, for that one too: creating
     * a large store takes seconds (the kernel zeroes its pages), which would otherwise stall the
     * first writes of every new generation. Only collections in use on a shard (holding a store
     * there) get new stores, except those in {@code evenIfUnused}. Returns how many were new.
     */
    public int prepareGenerations(Set<String> evenIfUnused) {
        int created = 0;
        Instant now = null;
        RuntimeException noTime = null;
        for (CollectionInfo c : catalog.all()) {
            if (!servable(c)) {
                continue;
            }
            CollectionSettings s = c.getSettings();
            boolean eager = evenIfUnused.contains(c.getName());
            if (CollectionSettingsRules.retention(s).isZero()) {
                created += index().prepare(c.getName(), Window.FOREVER.current(), eager);
                continue;
            }
            if (now == null && noTime == null) {
                try {
                    now = clock.instant();
                } catch (RuntimeException e) {
                    noTime = e; // collections without retention are still prepared; thrown below
                }
            }
            if (noTime != null) {
                continue;
            }
            long current = window(s, now).current();
            created += index().prepare(c.getName(), current, eager);
            long next = window(s, now.plus(prepareLead(CollectionSettingsRules.generation(s)))).current();
            if (next != current) {
                created += index().prepare(c.getName(), next, eager);
            }
        }
        if (noTime != null) {
            throw noTime;
        }
        return created;
    }

    /**
     * Creates the new collection's current store on every shard before CreateCollection answers.
     * Otherwise its first writes create them: seconds on a busy node (the first map of a JVM
     * longer still), while a Dedup holds its bucket locks, so concurrent Dedups on a fresh
     * collection waited out their lock wait (ABORTED) and writes their deadline. A shard that
     * fails here is left to create its store at the first write, as before.
     */
    private void prepareNew(String name, CollectionSettings settings) {
        try {
            index().prepare(name, window(settings).current(), true);
        } catch (RuntimeException e) {
            LOG.warning("collection '" + name + "' created; its stores will be created by its first writes: " + e);
        }
    }

    /** How long before a generation starts its store is created: a few sweeps, never more than half a generation. */
    static Duration prepareLead(Duration generation) {
        Duration half = generation.dividedBy(2);
        Duration lead = Duration.ofMinutes(5);
        return half.compareTo(lead) < 0 ? half : lead;
    }

    /** A collection without retention has one generation and never reads the clock (a cluster's may refuse). */
    private Window window(CollectionSettings s) {
        return CollectionSettingsRules.retention(s).isZero() ? Window.FOREVER : window(s, clock.instant());
    }

    private static Window window(CollectionSettings s, Instant at) {
        return Window.at(at, CollectionSettingsRules.retention(s), CollectionSettingsRules.generation(s));
    }

    @Override
    public void createCollection(CreateCollectionRequest req, StreamObserver<CreateCollectionResponse> out) {
        answer(out, () -> {
            if (req.getName().isEmpty()) {
                throw Validation.invalid("name is empty");
            }
            String name = Validation.collectionName(req.getName());
            CollectionSettings settings = CollectionSettingsRules.complete(req.getSettings());
            DiskSpace.requireRoom();
            Catalog.Created c = catalog.create(name, settings);
            if (!c.created() && !CollectionSettingsRules.sameSettings(c.collection().getSettings(), req.getSettings())) {
                throw Status.ALREADY_EXISTS.withDescription("collection '" + name + "' exists with other settings: "
                        + TextFormat.shortDebugString(c.collection().getSettings())).asRuntimeException();
            }
            if (c.created()) {
                prepareNew(name, settings);
            }
            return CreateCollectionResponse.newBuilder().setCollection(c.collection()).setCreated(c.created()).build();
        });
    }

    /** See simdex.proto: catalog first, so new requests get NOT_FOUND, then the data on every shard. */
    @Override
    public void deleteCollection(DeleteCollectionRequest req, StreamObserver<DeleteCollectionResponse> out) {
        answer(out, () -> {
            if (req.getName().isEmpty()) {
                throw Validation.invalid("name is empty");
            }
            String name = Validation.collectionName(req.getName());
            if (name.equals(Catalog.DEFAULT)) {
                throw Validation.invalid("name 'default': the default collection always exists; delete its documents instead");
            }
            boolean existed = catalog.remove(name);
            fingerprinters.remove(name);
            outcomes.forget(name);
            int dropped = index().dropAll(name);
            LOG.info("collection '" + name + "' deleted: " + dropped + " shard generations dropped");
            return DeleteCollectionResponse.newBuilder().setExisted(existed).build();
        });
    }

    /** See simdex.proto: the settings that decide how long documents are kept and how they are judged. */
    @Override
    public void updateCollection(UpdateCollectionRequest req, StreamObserver<UpdateCollectionResponse> out) {
        answer(out, () -> {
            if (req.getName().isEmpty()) {
                throw Validation.invalid("name is empty");
            }
            String name = Validation.collectionName(req.getName());
            CollectionSettings[] before = new CollectionSettings[1];
            Catalog.Updated u = catalog.update(name, current -> CollectionSettingsRules.updated(before[0] = current, req))
                    .orElseThrow(() -> notFound(name));
            if (u.changed()) {
                LOG.info("collection '" + name + "' updated: " + CollectionSettingsRules.changes(before[0], u.collection().getSettings()));
            }
            return UpdateCollectionResponse.newBuilder().setCollection(u.collection()).setChanged(u.changed()).build();
        });
    }

    @Override
    public void listCollections(ListCollectionsRequest req, StreamObserver<ListCollectionsResponse> out) {
        answer(out, () -> {
            ListCollectionsResponse.Builder b = ListCollectionsResponse.newBuilder();
            b.addAllCollections(catalog.all());
            return b.build();
        });
    }

    @Override
    public void insert(InsertRequest req, StreamObserver<InsertResponse> out) {
        answer(out, () -> {
            Target c = existing(req.getCollection());
            RequestDocs docs = RequestDocs.read(c, req.getDocumentsList(), index());
            DiskSpace.requireRoom();
            index().insert(c.name(), c.window(), docs.ids(), docs.fps(), docs.shortTextsToStore(c), null, c.keepsSketches());
            docs.recordContents(index().contentIndex(), c, i -> true);
            return InsertResponse.newBuilder().setInserted(docs.ids().length).build();
        });
    }

    @Override
    public void query(QueryRequest req, StreamObserver<QueryResponse> out) {
        // No thread waits for the shards: their answers build the response (answerLater).
        answerLater(out, 0, () -> {
            Target c = existing(req.getCollection());
            int k = distance(c, req.hasMaxDistance(), req.getMaxDistance().getValue());
            int n = Validation.batch("probes", req.getProbesCount());
            int limit = Validation.limit(req.getLimit());
            long[] fps = new long[n];
            String[] texts = new String[n];
            Target.TextPrint[] prints = new Target.TextPrint[n];
            for (int i = 0; i < n; i++) {
                Probe p = req.getProbes(i);
                // Normalised once: the fingerprint and the verification both read it.
                texts[i] = p.hasText() ? ContentHash.normalise(Validation.text("probes", i, ".text", p.getText())) : null;
                switch (p.getContentCase()) {
                    case FINGERPRINT -> fps[i] = p.getFingerprint();
                    case TEXT -> {
                        prints[i] = c.print("probes[" + i + "].text", p.getText(), texts[i]);
                        fps[i] = prints[i].fp();
                    }
                    case CONTENT_NOT_SET -> throw Validation.invalid("probes[" + i + "] has neither fingerprint nor text");
                }
            }
            return index().queryAsync(c.name(), c.window(), fps, k, limit, c.probeChecks(texts, prints)).thenApply(hits -> {
                QueryResponse.Builder b = QueryResponse.newBuilder();
                int matched = 0;
                for (int i = 0; i < n; i++) {
                    QueryResult.Builder r = b.addResultsBuilder().setFingerprint(fps[i]).setTotalMatches(hits.get(i).total());
                    hits.get(i).hits().forEach(h -> r.addMatches(match(h)));
                    matched += hits.get(i).total() > 0 ? 1 : 0;
                }
                outcomes.query(c.name(), matched, n - matched);
                return b.build();
            });
        });
    }

    @Override
    public void dedup(DedupRequest req, StreamObserver<DedupResponse> out) {
        answer(out, () -> {
            Target c = existing(req.getCollection());
            int k = distance(c, req.hasMaxDistance(), req.getMaxDistance().getValue());
            int limit = Validation.limit(req.getLimit());
            RequestDocs docs = RequestDocs.read(c, req.getDocumentsList(), index());
            DiskSpace.requireRoom();
            List<IndexRouter.Decision> decisions = index().dedup(c.name(), c.window(), docs.ids(), docs.fps(), k, limit,
                    c.probeChecks(docs.normalised(), docs.prints()));
            docs.recordContents(index().contentIndex(), c, i -> decisions.get(i).inserted());
            DedupResponse.Builder b = DedupResponse.newBuilder();
            int inserted = 0;
            for (int i = 0; i < docs.ids().length; i++) {
                IndexRouter.Decision d = decisions.get(i);
                inserted += d.inserted() ? 1 : 0;
                DedupResult.Builder r = b.addResultsBuilder().setId(docs.ids()[i]).setFingerprint(docs.fps()[i]).setInserted(d.inserted()).setSequence(d.sequence())
                        .setTotalMatches(d.total())
                        .setKnownText(docs.known()[i]);
                d.duplicates().forEach(h -> r.addDuplicates(match(h)));
            }
            outcomes.dedup(c.name(), inserted, docs.ids().length - inserted);
            return b.build();
        });
    }

    @Override
    public void lookup(LookupRequest req, StreamObserver<LookupResponse> out) {
        answer(out, () -> {
            Target c = existing(req.getCollection());
            String[] ids = Validation.ids(req.getIdsList());
            Bound bound = index().lookup(c.name(), c.window(), ids);
            LookupResponse.Builder b = LookupResponse.newBuilder();
            for (int i = 0; i < ids.length; i++) {
                b.addResultsBuilder().setId(ids[i]).setFound(bound.found()[i]).setFingerprint(bound.fingerprints()[i]);
            }
            return b.build();
        });
    }

    @Override
    public void export(ExportRequest req, StreamObserver<ExportResponse> out) {
        answer(out, () -> {
            Target c = existing(req.getCollection());
            int pageSize = Validation.pageSize(req.getPageSize());
            ExportCursor from = Validation.cursor(req.getCursor(), c.name());
            IndexRouter.ExportedPage page = index().export(c.name(), c.window(), from, pageSize);
            ExportResponse.Builder b = ExportResponse.newBuilder();
            for (int i = 0; i < page.ids().length; i++) {
                b.addDocumentsBuilder().setId(page.ids()[i]).setFingerprint(page.fingerprints()[i]);
            }
            return b.setNextCursor(page.next() == null ? "" : page.next().encode()).build();
        });
    }

    @Override
    public void delete(DeleteRequest req, StreamObserver<DeleteResponse> out) {
        answer(out, () -> {
            Target c = existing(req.getCollection());
            String[] ids = Validation.ids(req.getIdsList());
            int distinct = (int) java.util.Arrays.stream(ids).distinct().count();
            int deleted = index().delete(c.name(), ids, c.keepsSketches());
            return DeleteResponse.newBuilder().setDeleted(deleted).setNotFound(distinct - deleted).build();
        });
    }

    @Override
    public void fingerprint(FingerprintRequest req, StreamObserver<FingerprintResponse> out) {
        answer(out, () -> {
            Target c = existing(req.getCollection());
            int n = Validation.batch("texts", req.getTextsCount());
            FingerprintResponse.Builder b = FingerprintResponse.newBuilder();
            for (int i = 0; i < n; i++) {
                b.addFingerprints(c.fingerprint("texts[" + i + "]", req.getTexts(i)));
            }
            return b.build();
        });
    }

    @Override
    public void stats(StatsRequest req, StreamObserver<StatsResponse> out) {
        answer(out, () -> {
            Target c = existing(req.getCollection());
            IndexRouter.Stats s = index().stats(c.name(), c.window());
            return StatsResponse.newBuilder().setCollection(c.name()).setDocuments(s.documents()).setFingerprints(s.fingerprints())
                    .setShards(s.shards()).setTableBytes(s.tableBytes()).setDocBytes(s.docBytes())
                    .setBucketEntries(s.bucketEntries()).build();
        });
    }

    /**
     * Each batch is validated and written as it arrives, but bucket appends are held and applied
     * a window at a time, grouped by bucket ({@link BulkAppends}): documents are findable once
     * their window is applied, and all of them before the response.
     */
    @Override
    public StreamObserver<BulkLoadRequest> bulkLoad(StreamObserver<BulkLoadResponse> out) {
        return new BulkLoadCall(this, new BulkAppends(bulkBudget), out);
    }

    @Override
    public void checkUrls(CheckUrlsRequest req, StreamObserver<CheckUrlsResponse> out) {
        answer(out, () -> {
            String job = Validation.name("job", req.getJob());
            int n = Validation.batch("urls", req.getUrlsCount());
            String[] urls = new String[n];
            for (int i = 0; i < n; i++) {
                urls[i] = Validation.url(i, req.getUrls(i), req.getCanonical());
            }
            long ttl = req.getTtlSeconds() == 0 ? DEFAULT_URL_TTL_SECONDS : Validation.ttl(req.getTtlSeconds());
            if (!req.getCheckOnly()) {
                DiskSpace.requireRoom();
            }
            boolean[] fresh = index().seenUrls().check(job, urls, clock.instant().getEpochSecond(), ttl, req.getCheckOnly());
            CheckUrlsResponse.Builder b = CheckUrlsResponse.newBuilder();
            int count = 0;
            for (boolean f : fresh) {
                b.addIsNew(f);
                count += f ? 1 : 0;
            }
            outcomes.urls(count, n - count);
            return b.setNewCount(count).build();
        });
    }

    @Override
    public void dropUrlJob(DropUrlJobRequest req, StreamObserver<DropUrlJobResponse> out) {
        answer(out, () -> DropUrlJobResponse.newBuilder().setExisted(index().seenUrls().drop(Validation.name("job", req.getJob()))).build());
    }

    @Override
    public void handlingTimes(HandlingTimesRequest req, StreamObserver<HandlingTimesResponse> out) {
        answer(out, () -> handlingTimes.snapshot(req.getReset()));
    }

    /** The clock of this service's calls: give it to the server that serves the service. */
    public HandlingTimes handlingTimes() {
        return handlingTimes;
    }

    /** What this service's Dedup, Query and CheckUrls calls decided: bind it to the process's metrics. */
    public RequestOutcomes outcomes() {
        return outcomes;
    }

    /** Removes expired URLs from every job's seen-set; returns how many. */
    public long sweepExpiredUrls() {
        return index().seenUrls().sweep(clock.instant().getEpochSecond());
    }

    Target existing(String name) {
        String c = Validation.collectionName(name);
        CollectionInfo info = catalog.get(c).orElseThrow(() -> notFound(c));
        CollectionSettings s = info.getSettings();
        String problem = CollectionSettingsRules.retentionProblem(s);
        if (problem != null) {
            throw Status.FAILED_PRECONDITION.withDescription("collection '" + c + "' is stored with settings this server refuses: "
                    + problem + "; delete it with DeleteCollection").asRuntimeException();
        }
        return new Target(c, s, window(s), fingerprinter(c, s), CollectionSettingsRules.shortTextRule(s),
                CollectionSettingsRules.shortFingerprintRule(s));
    }

    private static StatusRuntimeException notFound(String name) {
        return Status.NOT_FOUND.withDescription("collection '" + name + "' does not exist; create it with CreateCollection")
                .asRuntimeException();
    }

    /**
     * The fingerprinter of collection {@code name} with settings {@code s}, made once per
     * settings: the catalog hands out the same settings object until they change (an update, or
     * the collection deleted and made again through another router), so the check is a
     * comparison of references but for the first request after a change.
     */
    private TextFingerprinter fingerprinter(String name, CollectionSettings s) {
        Fingerprinting f = fingerprinters.get(name);
        if (f == null || f.settings() != s) {
            f = new Fingerprinting(s, f != null && f.settings().equals(s) ? f.fingerprinter() : CollectionSettingsRules.fingerprinter(s));
            fingerprinters.put(name, f);
        }
        return f.fingerprinter();
    }

    private record Fingerprinting(CollectionSettings settings, TextFingerprinter fingerprinter) {
    }

    /** The request's distance if it gives one, else the collection's. */
    private static int distance(Target c, boolean given, int k) {
        return given ? Validation.maxDistance(k) : CollectionSettingsRules.maxDistance(c.settings());
    }

    private static Match match(IndexRouter.Hit h) {
        return Match.newBuilder().setId(h.id()).setFingerprint(h.fingerprint()).setDistance(h.distance())
                .setSimilarity((float) h.similarity()).build();
    }

    /** How often a request is retried after a shard said this router's partition map is stale. */
    private static final int STALE_MAP_RETRIES = 3;

    /**
     * Runs a request and answers it. A shard that refuses a call for a stale partition map
     * (FAILED_PRECONDITION from its epoch fence) gets the request retried on the newer map:
     * every write is idempotent, and Dedup releases its locks before it gives up.
     */
    private <T> void answer(StreamObserver<T> out, Supplier<T> call) {
        T response;
        try {
            response = withFreshMap(call);
        } catch (RuntimeException e) {
            out.onError(status(e).asRuntimeException());
            return;
        }
        out.onNext(response);
        out.onCompleted();
    }

    /**
     * As {@link #answer}, for a call whose answer comes later: {@code out} is answered on the
     * thread that completes it. A stale partition map is refreshed and the call retried, as
     * {@link #withFreshMap} does, off that thread (a refresh may wait for Atomix) and in the
     * request's gRPC Context.
     */
    private <T> void answerLater(StreamObserver<T> out, int attempt, Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> answer;
        try {
            answer = call.get();
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        Context context = Context.current();
        answer.whenComplete((response, failure) -> {
            if (failure == null) {
                out.onNext(response);
                out.onCompleted();
                return;
            }
            RuntimeException e = Fanout.cause(failure);
            if (attempt < STALE_MAP_RETRIES && e instanceof StatusRuntimeException s && ShardEpochs.isStale(s.getStatus())) {
                CompletableFuture.runAsync(context.wrap(() -> {
                    try {
                        view.refresh();
                    } catch (RuntimeException r) {
                        out.onError(status(r).asRuntimeException());
                        return;
                    }
                    answerLater(out, attempt + 1, call);
                }));
                return;
            }
            out.onError(status(e).asRuntimeException());
        });
    }

    /**
     * Runs {@code call}, again on a newer map as {@link #answer} says. Replicas its writes leave
     * behind are marked once per attempt, when it ends, before any answer ({@link RequestMarks}).
     */
    <T> T withFreshMap(Supplier<T> call) {
        for (int attempt = 0; ; attempt++) {
            try (RequestMarks marks = RequestMarks.open()) {
                return call.get();
            } catch (StatusRuntimeException e) {
                if (attempt == STALE_MAP_RETRIES || !ShardEpochs.isStale(e.getStatus())) {
                    throw e;
                }
                view.refresh();
            }
        }
    }

    /**
     * The status a failure is answered with. A fault here becomes INTERNAL with the exception as
     * its cause: the server's CallGuard logs it, and a shard's INTERNAL or UNKNOWN, under a
     * request id. DATA_LOSS from a shard is logged here, since it reaches the caller as it is.
     */
    static Status status(RuntimeException e) {
        NoRoomException noRoom = NoRoomException.in(e);
        if (noRoom != null) {
            return Status.RESOURCE_EXHAUSTED.withDescription(noRoom.getMessage());
        }
        if (e instanceof StatusRuntimeException s) {
            if (s.getStatus().getCode() == Status.Code.DATA_LOSS) {
                LOG.log(Level.SEVERE, "a request failed in a shard: " + s.getStatus(), e);
            }
            return s.getStatus().getCode() == Status.Code.INTERNAL || s.getStatus().getCode() == Status.Code.UNKNOWN
                    ? s.getStatus().withCause(e) : s.getStatus();
        }
        return Status.INTERNAL.withCause(e);
    }
}
