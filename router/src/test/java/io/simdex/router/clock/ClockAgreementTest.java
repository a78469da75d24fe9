package io.simdex.router.clock;

import io.simdex.router.clock.ClockAgreement.Outcome;
import io.simdex.router.clock.ClockAgreement.Reading;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClockAgreementTest {
    private static final long SKEW = 5_000;

    @Test
    void of_threeCloseClocks_agreeOnTheirMedian() {
        Outcome o = ClockAgreement.of(List.of(r("a", 1_000_000), r("b", 1_000_900), r("c", 999_400)), SKEW);
        assertTrue(o.agreed());
        assertEquals(1_000_000, o.millis());
        assertTrue(o.outliers().isEmpty());
    }

    @Test
    void of_oneClockMinutesAheadOfThree_outvotedAndNamed() {
        Outcome o = ClockAgreement.of(List.of(r("a", 1_000_000), r("b", 1_300_000), r("c", 1_000_200)), SKEW);
        assertTrue(o.agreed());
        assertEquals(1_000_100, o.millis(), "the median of the two that agree");
        assertEquals(List.of("b"), o.outliers().stream().map(Reading::node).toList());
        assertEquals("a -200 ms, b +299800 ms, c +0 ms", o.describe());
    }

    @Test
    void of_twoClocksApart_noAgreement() {
        Outcome o = ClockAgreement.of(List.of(r("a", 1_000_000), r("b", 1_300_000)), SKEW);
        assertFalse(o.agreed(), "two nodes that disagree give no way to tell which is right");
        assertEquals(2, o.outliers().size());
    }

    @Test
    void of_skewExactlyAtTheBound_agrees_oneMillisecondBeyond_doesNot() {
        assertTrue(ClockAgreement.of(List.of(r("a", 0), r("b", 2 * SKEW)), SKEW).agreed(), "each is SKEW from their mean");
        assertFalse(ClockAgreement.of(List.of(r("a", 0), r("b", 2 * SKEW + 2)), SKEW).agreed());
    }

    @Test
    void of_slowAnswers_theirUncertaintyWidensTheBound() {
        List<Reading> slow = List.of(new Reading("a", 0, 1_001), new Reading("b", 2 * SKEW + 2_000, 1_001));
        assertTrue(ClockAgreement.of(slow, SKEW).agreed(), "2 s round trips leave each clock uncertain by 1 s");
        List<Reading> fast = List.of(new Reading("a", 0, 0), new Reading("b", 2 * SKEW + 2_000, 0));
        assertFalse(ClockAgreement.of(fast, SKEW).agreed());
    }

    @Test
    void of_oneReading_agreesWithItself() {
        Outcome o = ClockAgreement.of(List.of(r("a", 42)), SKEW);
        assertTrue(o.agreed());
        assertEquals(42, o.millis());
    }

    @Test
    void of_fiveSpreadOut_noMajorityWithinTheBound() {
        Outcome o = ClockAgreement.of(List.of(r("a", 0), r("b", 20_000), r("c", 40_000), r("d", 60_000), r("e", 80_000)), SKEW);
        assertFalse(o.agreed());
    }

    private static Reading r(String node, long millis) {
        return new Reading(node, millis, 0);
    }
}
