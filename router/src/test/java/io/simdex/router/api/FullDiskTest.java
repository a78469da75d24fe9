package io.simdex.router.api;

import com.google.protobuf.UInt32Value;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Probe;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.QueryResponse;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.Calls;
import io.simdex.router.TestServer;
import io.simdex.server.store.DiskSpace;
import io.simdex.server.store.FullDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static io.simdex.router.Calls.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded default on a data disk that fills: the write that needs a file the disk has no
 * room for fails at once with RESOURCE_EXHAUSTED, every later write that adds data is refused
 * before it writes anything, reads and stats go on, and writes are taken again once files can
 * be made, without a restart.
 */
class FullDiskTest {
    @TempDir
    Path dir;

    @Test
    void aStoreThatCannotGrow_refusesWritesAtOnce_servesReads_andTakesWritesAgainOnceThereIsRoom() throws Exception {
        try (TestServer server = new TestServer(dir)) {
            SimdexGrpc.SimdexBlockingStub stub = server.stub();
            SplittableRandom random = new SplittableRandom(19);
            List<Long> acknowledged = new ArrayList<>();
            StatusRuntimeException first = null;
            long cut = 0;
            try (FullDisk disk = FullDisk.fill()) {
                // One document a call, until a store's first files (1,024 entries) fill and the
                // next cannot be made: the call that needs it fails, fast, naming the cause.
                while (first == null && acknowledged.size() < 20_000) {
                    long fp = random.nextLong();
                    try {
                        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> stub.insert(InsertRequest.newBuilder()
                                .addDocuments(doc("d" + acknowledged.size(), fp)).build()));
                        acknowledged.add(fp);
                    } catch (StatusRuntimeException e) {
                        first = e;
                        cut = fp;
                    }
                }
                assertNotNull(first, "20,000 documents stored on a disk with no room for another file");
                assertFullDisk(first);
                assertTrue(DiskSpace.isShort());
                int n = acknowledged.size();
                // The failed call may have written part of its document: retrying it is how it completes.
                long documents = Calls.stats(stub).getDocuments();
                assertTrue(documents == n || documents == n + 1, documents + " documents after " + n + " acknowledged");

                // From then on, writes that add data are refused before anything of theirs is written.
                assertFullDisk(assertThrows(StatusRuntimeException.class, () -> stub.insert(InsertRequest.newBuilder()
                        .addDocuments(doc("new", 0x7777_0000_0000_0001L)).addDocuments(doc("new2", 0x7777_0000_0000_0002L)).build())));
                assertFullDisk(assertThrows(StatusRuntimeException.class, () -> stub.dedup(DedupRequest.newBuilder()
                        .addDocuments(doc("dup", 0x7777_0000_0000_0003L)).build())));
                assertEquals(documents, Calls.stats(stub).getDocuments(), "documents after the refused writes");
                assertEquals(0, Calls.query(stub, 0x7777_0000_0000_0001L, 0).size(), "a refused document, found");
                assertEveryOneFound(stub, acknowledged);

                disk.free();
                // A refused write starts another attempt to make the files, at most a second after the last.
                long retried = cut;
                assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                    while (true) {
                        try {
                            stub.insert(InsertRequest.newBuilder().addDocuments(doc("d" + n, retried)).build());
                            return;
                        } catch (StatusRuntimeException e) {
                            assertFullDisk(e);
                            Thread.sleep(50); // polls a condition: the retry making the files
                        }
                    }
                });
            }
            assertFalse(DiskSpace.isShort());
            acknowledged.add(cut);
            stub.insert(InsertRequest.newBuilder().addDocuments(doc("new", 0x7777_0000_0000_0001L)).build());
            assertEquals(acknowledged.size() + 1, Calls.stats(stub).getDocuments());
            assertEveryOneFound(stub, acknowledged);
        }
    }

    private static void assertFullDisk(StatusRuntimeException e) {
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode(), e.getStatus().toString());
        assertTrue(e.getStatus().getDescription().startsWith("the data disk is full: cannot make "), e.getStatus().toString());
        assertTrue(e.getStatus().getDescription().contains("(No space left on device)"), e.getStatus().toString());
    }

    /** Each of {@code fps} is found at distance 0, once. */
    private static void assertEveryOneFound(SimdexGrpc.SimdexBlockingStub stub, List<Long> fps) {
        for (int from = 0; from < fps.size(); from += 1000) {
            QueryRequest.Builder q = QueryRequest.newBuilder().setMaxDistance(UInt32Value.of(0));
            List<Long> batch = fps.subList(from, Math.min(fps.size(), from + 1000));
            batch.forEach(fp -> q.addProbes(Probe.newBuilder().setFingerprint(fp)));
            QueryResponse r = stub.query(q.build());
            for (int i = 0; i < batch.size(); i++) {
                assertEquals(1, r.getResults(i).getMatchesCount(), "document " + (from + i) + " found");
            }
        }
    }
}
