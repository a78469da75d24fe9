package io.simdex.router;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.CreateCollectionResponse;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DedupResponse;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.DeleteResponse;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.FingerprintResponse;
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

import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The public {@code simdex.v1.Simdex} service. Every request is validated and every text
 * fingerprinted before the first write, so a rejected request changes nothing.
 */
public final class SimdexService extends SimdexGrpc.SimdexImplBase {
    private final IndexRouter index;
    private final Catalog catalog;
    private final ToLongFunction<String> textFingerprint;

    /** @param textFingerprint SimHash of a text; throws IllegalArgumentException for a text with no terms */
    public SimdexService(IndexRouter index, Catalog catalog, ToLongFunction<String> textFingerprint) {
        this.index = index;
        this.catalog = catalog;
        this.textFingerprint = textFingerprint;
    }

    @Override
    public void createCollection(CreateCollectionRequest req, StreamObserver<CreateCollectionResponse> out) {
        answer(out, () -> {
            if (req.getName().isEmpty()) {
                throw Validation.invalid("name is empty");
            }
            String name = Validation.collectionName(req.getName());
            boolean created = catalog.create(name);
            return CreateCollectionResponse.newBuilder().setCollection(info(name)).setCreated(created).build();
        });
    }

    @Override
    public void listCollections(ListCollectionsRequest req, StreamObserver<ListCollectionsResponse> out) {
        answer(out, () -> {
            ListCollectionsResponse.Builder b = ListCollectionsResponse.newBuilder();
            catalog.names().forEach(n -> b.addCollections(info(n)));
            return b.build();
        });
    }

    @Override
    public void insert(InsertRequest req, StreamObserver<InsertResponse> out) {
        answer(out, () -> {
            String c = existing(req.getCollection());
            Docs docs = docs(req.getDocumentsList());
            index.insert(c, docs.ids, docs.fps);
            return InsertResponse.newBuilder().setInserted(docs.ids.length).build();
        });
    }

    @Override
    public void query(QueryRequest req, StreamObserver<QueryResponse> out) {
        answer(out, () -> {
            String c = existing(req.getCollection());
            int k = Validation.maxDistance(req.getMaxDistance());
            int n = Validation.batch("probes", req.getProbesCount());
            long[] fps = new long[n];
            for (int i = 0; i < n; i++) {
                fps[i] = probe(i, req.getProbes(i));
            }
            List<List<IndexRouter.Hit>> hits = index.query(c, fps, k, req.getLimit());
            QueryResponse.Builder b = QueryResponse.newBuilder();
            for (int i = 0; i < n; i++) {
                QueryResult.Builder r = b.addResultsBuilder().setFingerprint(fps[i]);
                hits.get(i).forEach(h -> r.addMatches(match(h)));
            }
            return b.build();
        });
    }

    @Override
    public void dedup(DedupRequest req, StreamObserver<DedupResponse> out) {
        answer(out, () -> {
            String c = existing(req.getCollection());
            int k = Validation.maxDistance(req.getMaxDistance());
            Docs docs = docs(req.getDocumentsList());
            List<IndexRouter.Decision> decisions = index.dedup(c, docs.ids, docs.fps, k);
            DedupResponse.Builder b = DedupResponse.newBuilder();
            for (int i = 0; i < docs.ids.length; i++) {
                IndexRouter.Decision d = decisions.get(i);
                DedupResult.Builder r = b.addResultsBuilder().setId(docs.ids[i]).setFingerprint(docs.fps[i]).setInserted(d.inserted()).setSequence(d.sequence());
                d.duplicates().forEach(h -> r.addDuplicates(match(h)));
            }
            return b.build();
        });
    }

    @Override
    public void delete(DeleteRequest req, StreamObserver<DeleteResponse> out) {
        answer(out, () -> {
            String c = existing(req.getCollection());
            int n = Validation.batch("ids", req.getIdsCount());
            String[] ids = new String[n];
            for (int i = 0; i < n; i++) {
                ids[i] = Validation.id("ids[" + i + "]", req.getIds(i));
            }
            int distinct = (int) java.util.Arrays.stream(ids).distinct().count();
            int deleted = index.delete(c, ids);
            return DeleteResponse.newBuilder().setDeleted(deleted).setNotFound(distinct - deleted).build();
        });
    }

    @Override
    public void fingerprint(FingerprintRequest req, StreamObserver<FingerprintResponse> out) {
        answer(out, () -> {
            existing(req.getCollection());
            int n = Validation.batch("texts", req.getTextsCount());
            FingerprintResponse.Builder b = FingerprintResponse.newBuilder();
            for (int i = 0; i < n; i++) {
                b.addFingerprints(text("texts[" + i + "]", req.getTexts(i)));
            }
            return b.build();
        });
    }

    @Override
    public void stats(StatsRequest req, StreamObserver<StatsResponse> out) {
        answer(out, () -> {
            String c = existing(req.getCollection());
            IndexRouter.Stats s = index.stats(c);
            return StatsResponse.newBuilder().setCollection(c).setDocuments(s.documents()).setFingerprints(s.fingerprints())
                    .setShards(s.shards()).setTableBytes(s.tableBytes()).setDocBytes(s.docBytes())
                    .setBucketEntries(s.bucketEntries()).build();
        });
    }

    @Override
    public StreamObserver<BulkLoadRequest> bulkLoad(StreamObserver<BulkLoadResponse> out) {
        return new StreamObserver<>() {
            private String collection;
            private long inserted;
            private long batches;
            private boolean failed;

            @Override
            public void onNext(BulkLoadRequest req) {
                if (failed) {
                    return;
                }
                try {
                    String c = existing(req.getCollection());
                    if (collection != null && !collection.equals(c)) {
                        throw Validation.invalid("batch " + batches + " names collection '" + c + "' but the stream loads '" + collection + "'");
                    }
                    collection = c;
                    Docs docs = docs(req.getDocumentsList());
                    index.insert(c, docs.ids, docs.fps);
                    inserted += docs.ids.length;
                    batches++;
                } catch (RuntimeException e) {
                    failed = true;
                    Status s = status(e);
                    out.onError(s.withDescription("batch " + batches + " rejected after " + inserted
                            + " documents were accepted: " + s.getDescription()).asRuntimeException());
                }
            }

            @Override
            public void onError(Throwable t) {
                failed = true;
            }

            @Override
            public void onCompleted() {
                if (!failed) {
                    out.onNext(BulkLoadResponse.newBuilder().setInserted(inserted).setBatches(batches).build());
                    out.onCompleted();
                }
            }
        };
    }

    /** Parallel arrays of a request's documents, validated and fingerprinted. */
    private record Docs(String[] ids, long[] fps) {
    }

    private Docs docs(List<Document> documents) {
        int n = Validation.batch("documents", documents.size());
        String[] ids = new String[n];
        long[] fps = new long[n];
        for (int i = 0; i < n; i++) {
            Document d = documents.get(i);
            ids[i] = Validation.id("documents[" + i + "].id", d.getId());
            fps[i] = switch (d.getContentCase()) {
                case FINGERPRINT -> d.getFingerprint();
                case TEXT -> text("documents[" + i + "].text", d.getText());
                case CONTENT_NOT_SET -> throw Validation.invalid("documents[" + i + "] has neither fingerprint nor text");
            };
        }
        return new Docs(ids, fps);
    }

    private long probe(int i, Probe p) {
        return switch (p.getContentCase()) {
            case FINGERPRINT -> p.getFingerprint();
            case TEXT -> text("probes[" + i + "].text", p.getText());
            case CONTENT_NOT_SET -> throw Validation.invalid("probes[" + i + "] has neither fingerprint nor text");
        };
    }

    private long text(String field, String text) {
        Validation.text(field, text);
        try {
            return textFingerprint.applyAsLong(text);
        } catch (IllegalArgumentException e) {
            throw Validation.invalid(field + ": " + e.getMessage());
        }
    }

    private String existing(String name) {
        String c = Validation.collectionName(name);
        if (!catalog.exists(c)) {
            throw Status.NOT_FOUND.withDescription("collection '" + c + "' does not exist; create it with CreateCollection").asRuntimeException();
        }
        return c;
    }

    private CollectionInfo info(String name) {
        return CollectionInfo.newBuilder().setName(name).setCreatedUnixMs(catalog.createdMillis(name)).build();
    }

    private static Match match(IndexRouter.Hit h) {
        return Match.newBuilder().setId(h.id()).setFingerprint(h.fingerprint()).setDistance(h.distance()).build();
    }

    private static <T> void answer(StreamObserver<T> out, Supplier<T> call) {
        T response;
        try {
            response = call.get();
        } catch (RuntimeException e) {
            out.onError(status(e).asRuntimeException());
            return;
        }
        out.onNext(response);
        out.onCompleted();
    }

    private static Status status(RuntimeException e) {
        if (e instanceof StatusRuntimeException s) {
            return s.getStatus();
        }
        return Status.INTERNAL.withDescription(e.toString()).withCause(e);
    }
}
