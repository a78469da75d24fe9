package io.simdex.server;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeStateTest {
    @Test
    void raisingTheEpoch_waitsForCallsAdmittedUnderAnOlderOne() throws Exception {
        NodeState state = new NodeState("n", 5, true);
        assertTrue(state.admit(5));
        assertTrue(state.admit(6), "a newer stamp is admitted");
        assertFalse(state.raiseEpochAndDrain(6, 30), "the epoch-5 call is still running");
        assertFalse(state.admit(5), "after the raise, epoch 5 is stale");
        state.finished(5);
        assertTrue(state.raiseEpochAndDrain(6, 30), "only the epoch-6 call runs now, which the raise does not wait for");
    }

    @Test
    void aCallRefusedAsStale_isNotLeftCounted() throws Exception {
        NodeState state = new NodeState("n", 7, true);
        assertFalse(state.admit(3));
        assertTrue(state.raiseEpochAndDrain(8, 30));
    }
}
