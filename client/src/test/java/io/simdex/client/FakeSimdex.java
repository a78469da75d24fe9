package io.simdex.client;

import com.google.protobuf.UInt32Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.CreateCollectionResponse;
import io.simdex.proto.v1.DeleteCollectionRequest;
import io.simdex.proto.v1.DeleteCollectionResponse;
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
import io.simdex.proto.v1.LookupRequest;
import io.simdex.proto.v1.LookupResponse;
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

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * An in-memory simdex for tests: brute-force Hamming scans over a map per collection, the
 * server's batch limit, NOT_FOUND for unknown collections, and a record of every call's batch.
 * Empty ids and ids with a control character (such as {@link #REJECTED_ID}) are invalid, as on
 * the server. Codes and the wording tests assert are checked against the real service by
 * {@link SimdexContract}.
 */
public final class FakeSimdex extends SimdexGrpc.SimdexImplBase {
    /** An id the fake and the real service reject with INVALID_ARGUMENT. */
    public static final String REJECTED_ID = "bad\n";
    /** Matches per probe when a request gives no limit, as the server's. */
    static final int DEFAULT_LIMIT = 100;

    /** Ids of each Insert call, in call order. */
    public final List<List<String>> insertCalls = new CopyOnWriteArrayList<>();
    /** Probe count of each Query call. */
    public final List<Integer> queryCalls = new CopyOnWriteArrayList<>();
    public final List<QueryRequest> queryRequests = new CopyOnWriteArrayList<>();
    /** Document count of each BulkLoad message. */
    public final List<Integer> bulkBatches = new CopyOnWriteArrayList<>();
    /** Every UpdateCollection request received, in order. */
    public final List<UpdateCollectionRequest> updateRequests = new CopyOnWriteArrayList<>();

    private final Map<String, Map<String, Long>> collections = new LinkedHashMap<>();

    public FakeSimdex() {
        collections.put("default", new LinkedHashMap<>());
    }

    /** The fingerprint the fake gives a text: a SplitMix64 finaliser over its hash code. */
    public static long fingerprintOf(String text) {
        long z = text.hashCode() * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** A copy of a collection's id-to-fingerprint map, in insertion order. */
    public synchronized Map<String, Long> documents(String collection) {
        return new LinkedHashMap<>(collections.get(collection));
    }

    public synchronized void addCollection(String name) {
        collections.putIfAbsent(name, new LinkedHashMap<>());
    }

    public synchronized void put(String collection, String id, long fingerprint) {
        collections.get(collection).put(id, fingerprint);
    }

    @Override
    public void createCollection(CreateCollectionRequest req, StreamObserver<CreateCollectionResponse> obs) {
        answer(obs, () -> {
            boolean created = collections.putIfAbsent(req.getName(), new LinkedHashMap<>()) == null;
            return CreateCollectionResponse.newBuilder()
                    .setCollection(CollectionInfo.newBuilder().setName(req.getName()).setCreatedUnixMs(1_700_000_000_000L))
                    .setCreated(created).build();
        });
    }

    @Override
    public void deleteCollection(DeleteCollectionRequest req, StreamObserver<DeleteCollectionResponse> obs) {
        answer(obs, () -> {
            if (req.getName().equals("default")) {
                throw Status.INVALID_ARGUMENT.withDescription("name 'default': the default collection always exists; delete its documents instead")
                        .asRuntimeException();
            }
            return DeleteCollectionResponse.newBuilder().setExisted(collections.remove(req.getName()) != null).build();
        });
    }

    /** Answers the collection with the retention and default distance the request sets, nothing else kept. */
    @Override
    public void updateCollection(UpdateCollectionRequest req, StreamObserver<UpdateCollectionResponse> obs) {
        answer(obs, () -> {
            updateRequests.add(req);
            collection(req.getName(), 1); // NOT_FOUND for an unknown collection
            CollectionSettings.Builder s = CollectionSettings.newBuilder().setRetentionSeconds(req.getRetentionSeconds().getValue())
                    .setMaxDistance(req.hasMaxDistance() ? req.getMaxDistance() : UInt32Value.of(3));
            return UpdateCollectionResponse.newBuilder().setChanged(true).setCollection(CollectionInfo.newBuilder().setName(req.getName())
                    .setCreatedUnixMs(1_700_000_000_000L).setSettings(s)).build();
        });
    }

    @Override
    public void listCollections(ListCollectionsRequest req, StreamObserver<ListCollectionsResponse> obs) {
        answer(obs, () -> {
            ListCollectionsResponse.Builder r = ListCollectionsResponse.newBuilder();
            collections.keySet().forEach(n -> r.addCollections(CollectionInfo.newBuilder().setName(n)));
            return r.build();
        });
    }

    @Override
    public void insert(InsertRequest req, StreamObserver<InsertResponse> obs) {
        answer(obs, () -> {
            Map<String, Long> docs = collection(req.getCollection(), req.getDocumentsCount());
            List<Long> fps = req.getDocumentsList().stream().map(FakeSimdex::fingerprint).toList();
            insertCalls.add(req.getDocumentsList().stream().map(Document::getId).toList());
            for (int i = 0; i < fps.size(); i++) {
                docs.put(req.getDocuments(i).getId(), fps.get(i));
            }
            return InsertResponse.newBuilder().setInserted(req.getDocumentsCount()).build();
        });
    }

    @Override
    public void query(QueryRequest req, StreamObserver<QueryResponse> obs) {
        answer(obs, () -> {
            Map<String, Long> docs = collection(req.getCollection(), req.getProbesCount());
            queryCalls.add(req.getProbesCount());
            queryRequests.add(req);
            QueryResponse.Builder r = QueryResponse.newBuilder();
            for (Probe p : req.getProbesList()) {
                long fp = p.hasFingerprint() ? p.getFingerprint() : fingerprintOf(p.getText());
                List<Match> matches = scan(docs, fp, req.hasMaxDistance() ? req.getMaxDistance().getValue() : 3);
                int limit = Math.min(req.getLimit() == 0 ? DEFAULT_LIMIT : req.getLimit(), matches.size());
                r.addResults(QueryResult.newBuilder().setFingerprint(fp).addAllMatches(matches.subList(0, limit))
                        .setTotalMatches(matches.size()));
            }
            return r.build();
        });
    }

    @Override
    public void dedup(DedupRequest req, StreamObserver<DedupResponse> obs) {
        answer(obs, () -> {
            Map<String, Long> docs = collection(req.getCollection(), req.getDocumentsCount());
            DedupResponse.Builder r = DedupResponse.newBuilder();
            for (Document d : req.getDocumentsList()) {
                long fp = fingerprint(d);
                List<Match> near = scan(docs, fp, req.hasMaxDistance() ? req.getMaxDistance().getValue() : 3);
                if (Long.valueOf(fp).equals(docs.get(d.getId()))) {
                    near = List.of(); // stored by an earlier attempt: reported stored again
                }
                if (near.isEmpty()) {
                    docs.put(d.getId(), fp);
                }
                int limit = Math.min(req.getLimit() == 0 ? DEFAULT_LIMIT : req.getLimit(), near.size());
                r.addResults(DedupResult.newBuilder().setId(d.getId()).setFingerprint(fp)
                        .setInserted(near.isEmpty()).addAllDuplicates(near.subList(0, limit)).setTotalMatches(near.size()));
            }
            return r.build();
        });
    }

    @Override
    public void delete(DeleteRequest req, StreamObserver<DeleteResponse> obs) {
        answer(obs, () -> {
            Map<String, Long> docs = collection(req.getCollection(), req.getIdsCount());
            int deleted = 0;
            for (String id : req.getIdsList()) {
                deleted += docs.remove(id) != null ? 1 : 0;
            }
            return DeleteResponse.newBuilder().setDeleted(deleted).setNotFound(req.getIdsCount() - deleted).build();
        });
    }

    @Override
    public void lookup(LookupRequest req, StreamObserver<LookupResponse> obs) {
        answer(obs, () -> {
            Map<String, Long> docs = collection(req.getCollection(), req.getIdsCount());
            LookupResponse.Builder r = LookupResponse.newBuilder();
            for (String id : req.getIdsList()) {
                Long fp = docs.get(id);
                r.addResultsBuilder().setId(id).setFound(fp != null).setFingerprint(fp == null ? 0 : fp);
            }
            return r.build();
        });
    }

    /** Pages in insertion order; a cursor is the index of the page's first document. */
    @Override
    public void export(io.simdex.proto.v1.ExportRequest req, StreamObserver<io.simdex.proto.v1.ExportResponse> obs) {
        answer(obs, () -> {
            int size = req.getPageSize() == 0 ? 1000 : req.getPageSize();
            List<Map.Entry<String, Long>> docs = new java.util.ArrayList<>(collection(req.getCollection(), size).entrySet());
            int from = req.getCursor().isEmpty() ? 0 : Integer.parseInt(req.getCursor());
            io.simdex.proto.v1.ExportResponse.Builder r = io.simdex.proto.v1.ExportResponse.newBuilder();
            int to = Math.min(docs.size(), from + size);
            for (Map.Entry<String, Long> d : docs.subList(from, to)) {
                r.addDocumentsBuilder().setId(d.getKey()).setFingerprint(d.getValue());
            }
            return r.setNextCursor(to < docs.size() ? Integer.toString(to) : "").build();
        });
    }

    @Override
    public void fingerprint(FingerprintRequest req, StreamObserver<FingerprintResponse> obs) {
        answer(obs, () -> {
            collection(req.getCollection(), req.getTextsCount());
            FingerprintResponse.Builder r = FingerprintResponse.newBuilder();
            req.getTextsList().forEach(t -> r.addFingerprints(fingerprintOf(t)));
            return r.build();
        });
    }

    @Override
    public void stats(StatsRequest req, StreamObserver<StatsResponse> obs) {
        answer(obs, () -> {
            Map<String, Long> docs = collection(req.getCollection(), 1);
            return StatsResponse.newBuilder().setCollection(name(req.getCollection()))
                    .setDocuments(docs.size()).setFingerprints(docs.values().stream().distinct().count())
                    .setShards(1).build();
        });
    }

    @Override
    public StreamObserver<BulkLoadRequest> bulkLoad(StreamObserver<BulkLoadResponse> obs) {
        return new StreamObserver<>() {
            private long inserted;
            private long batches;
            private boolean failed;

            @Override
            public void onNext(BulkLoadRequest req) {
                if (failed) {
                    return;
                }
                try {
                    load(req);
                } catch (StatusRuntimeException e) {
                    failed = true;
                    Status s = e.getStatus();
                    obs.onError(s.withDescription("batch " + batches + " rejected after " + inserted + " documents were accepted: "
                            + s.getDescription()).asRuntimeException());
                }
            }

            private void load(BulkLoadRequest req) {
                synchronized (FakeSimdex.this) {
                    Map<String, Long> docs = collection(req.getCollection(), req.getDocumentsCount());
                    List<Long> fps = req.getDocumentsList().stream().map(FakeSimdex::fingerprint).toList();
                    bulkBatches.add(req.getDocumentsCount());
                    for (int i = 0; i < fps.size(); i++) {
                        docs.put(req.getDocuments(i).getId(), fps.get(i));
                    }
                    inserted += fps.size();
                    batches++;
                }
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
                if (!failed) {
                    reply(obs, BulkLoadResponse.newBuilder().setInserted(inserted).setBatches(batches).build());
                }
            }
        };
    }

    private Map<String, Long> collection(String name, int batch) {
        Map<String, Long> docs = collections.get(name(name));
        if (docs == null) {
            throw Status.NOT_FOUND.withDescription(notFound(name)).asRuntimeException();
        }
        if (batch < 1) {
            throw Status.INVALID_ARGUMENT.withDescription("batch is empty").asRuntimeException();
        }
        if (batch > ClientOptions.SERVER_BATCH_LIMIT) {
            throw Status.INVALID_ARGUMENT.withDescription("batch has " + batch + " entries, more than the limit of "
                    + ClientOptions.SERVER_BATCH_LIMIT + "; split the batch").asRuntimeException();
        }
        return docs;
    }

    /** The server's NOT_FOUND description for a collection that does not exist. */
    public static String notFound(String collection) {
        return "collection '" + collection + "' does not exist; create it with CreateCollection";
    }

    private static long fingerprint(Document d) {
        if (d.getId().isEmpty() || d.getId().chars().anyMatch(Character::isISOControl)) {
            throw Status.INVALID_ARGUMENT.withDescription("document id '" + d.getId() + "' is empty or contains a control character")
                    .asRuntimeException();
        }
        return d.hasFingerprint() ? d.getFingerprint() : fingerprintOf(d.getText());
    }

    private static List<Match> scan(Map<String, Long> docs, long fp, int maxDistance) {
        List<Match> out = new ArrayList<>();
        docs.forEach((id, f) -> {
            int d = Long.bitCount(f ^ fp);
            if (d <= maxDistance) {
                out.add(Match.newBuilder().setId(id).setFingerprint(f).setDistance(d).setSimilarity(-1).build());
            }
        });
        out.sort(Comparator.comparingInt(Match::getDistance).thenComparing(Match::getId));
        return out;
    }

    private static String name(String collection) {
        return collection.isEmpty() ? "default" : collection;
    }

    /** Runs a unary call under the fake's lock; a thrown status becomes the call's error. */
    private <T> void answer(StreamObserver<T> obs, Supplier<T> body) {
        T value;
        try {
            synchronized (this) {
                value = body.get();
            }
        } catch (StatusRuntimeException e) {
            obs.onError(e);
            return;
        }
        reply(obs, value);
    }

    private static <T> void reply(StreamObserver<T> obs, T value) {
        obs.onNext(value);
        obs.onCompleted();
    }
}
