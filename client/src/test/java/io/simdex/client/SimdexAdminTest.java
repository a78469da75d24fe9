package io.simdex.client;

import static io.simdex.client.FakeAdmin.progress;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simdex.proto.v1.MoveProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SimdexAdminTest {
    private final FakeAdmin fake = new FakeAdmin();
    private InProcessServer server;
    private SimdexAdmin admin;

    @BeforeEach
    void start() throws Exception {
        server = InProcessServer.start(fake);
        admin = SimdexAdmin.over(server.channel(), ClientOptions.DEFAULTS);
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        server.close();
    }

    @Test
    void addNode_severalMessages_eachHandedOverInOrderLastReturned() {
        fake.moves = List.of(progress(0, 2, "a"), progress(1, 2, "b"), progress(2, 2, "c"));
        List<String> seen = new ArrayList<>();

        MoveProgress last = admin.addNode("node-3", p -> seen.add(p.getStage()));

        assertEquals(List.of("a", "b", "c"), seen);
        assertTrue(last.getDone());
        assertEquals(List.of("add node-3"), fake.calls);
    }

    @Test
    void drainNode_emptyStream_returnsDefaultInstance() {
        assertEquals(MoveProgress.getDefaultInstance(), admin.drainNode("node-2", p -> { }));
    }

    @Test
    void addNode_consumerThrows_cancelsServerStream() throws Exception {
        fake.moves = List.of(progress(0, 4, "copying"));
        fake.moveEnd = FakeAdmin.HOLD_OPEN;

        assertThrows(IllegalStateException.class, () -> admin.addNode("node-3", p -> {
            throw new IllegalStateException("stop");
        }));

        assertTrue(fake.cancelled.await(5, TimeUnit.SECONDS), "server never saw the cancellation");
    }

    @Test
    void removeNode_blankNode_illegalArgumentNoCall() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> admin.removeNode(" "));

        assertEquals("node id is required, was ' '", e.getMessage());
        assertEquals(List.of(), fake.calls);
    }
}
