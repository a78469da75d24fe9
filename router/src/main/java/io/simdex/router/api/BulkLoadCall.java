package io.simdex.router.api;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.BulkLoadResponse;
import io.simdex.router.index.BulkAppends;
import io.simdex.server.store.DiskSpace;

import java.util.logging.Logger;

/**
 * One BulkLoad stream: each batch is validated and written as it arrives, with its bucket
 * appends held ({@link BulkAppends}) and applied a window at a time, on one stream per remote
 * node for the length of the call, closed at its end. All batches name one
 * collection. The response counts the documents applied; a stream that fails reports how many
 * of its first documents were accepted, after making those findable where the shards allow, so
 * the count is exact.
 */
final class BulkLoadCall implements StreamObserver<BulkLoadRequest> {
    private static final Logger LOG = Logger.getLogger(BulkLoadCall.class.getName());

    private final SimdexService service;
    private final BulkAppends held;
    private final StreamObserver<BulkLoadResponse> out;
    private String collection;
    private long batches;
    private boolean failed;

    BulkLoadCall(SimdexService service, BulkAppends held, StreamObserver<BulkLoadResponse> out) {
        this.service = service;
        this.held = held;
        this.out = out;
    }

    @Override
    public void onNext(BulkLoadRequest req) {
        if (failed) {
            return;
        }
        try {
            Target c = service.existing(req.getCollection());
            if (collection != null && !collection.equals(c.name())) {
                throw Validation.invalid("batch " + batches + " names collection '" + c.name() + "' but the stream loads '" + collection + "'");
            }
            collection = c.name();
            RequestDocs docs = RequestDocs.read(c, req.getDocumentsList(), service.index());
            DiskSpace.requireRoom();
            service.withFreshMap(() -> {
                service.index().insert(c.name(), c.window(), docs.ids(), docs.fps(), docs.shortTextsToStore(c), held, c.keepsSketches());
                docs.recordContents(service.index().contentIndex(), c, i -> true);
                return null;
            });
            batches++;
        } catch (RuntimeException e) {
            fail(e, "batch " + batches + " rejected");
        }
    }

    @Override
    public void onError(Throwable t) {
        // Cancelled: the batches received so far were written, so make them findable too.
        if (!failed) {
            failed = true;
            applyHeldIfPossible();
            held.close();
        }
    }

    @Override
    public void onCompleted() {
        if (failed) {
            return;
        }
        try {
            applyHeld();
        } catch (RuntimeException e) {
            failed = true;
            long unindexed = held.held();
            held.discard();
            held.close();
            error(e, "the last " + unindexed + " documents were not indexed");
            return;
        }
        held.close();
        out.onNext(BulkLoadResponse.newBuilder().setInserted(held.applied()).setBatches(batches).build());
        out.onCompleted();
    }

    private void applyHeld() {
        service.withFreshMap(() -> {
            held.apply(service.index());
            return null;
        });
    }

    /** For a stream that ends in failure: what it holds is applied if the shards allow, else dropped. */
    private void applyHeldIfPossible() {
        try {
            applyHeld();
        } catch (RuntimeException e) {
            LOG.warning("a failed bulk load's last " + held.held() + " documents stay unindexed until sent again: " + e);
            held.discard();
        }
    }

    /** Fails the stream, first making the earlier batches findable where the shards allow: the count is then exact. */
    private void fail(RuntimeException e, String what) {
        failed = true;
        applyHeldIfPossible();
        held.close();
        error(e, what);
    }

    private void error(RuntimeException e, String what) {
        Status s = SimdexService.status(e);
        out.onError(s.withDescription(what + " after " + held.applied() + " documents were accepted: " + s.getDescription())
                .asRuntimeException());
    }
}
