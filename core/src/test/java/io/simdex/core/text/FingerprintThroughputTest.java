package io.simdex.core.text;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** Prints {@link FingerprintThroughput#report()}; runs only with {@code -Dsimdex.throughput=true}. */
class FingerprintThroughputTest {
    @Test
    @EnabledIfSystemProperty(named = "simdex.throughput", matches = "true")
    void report_printsMegabytesPerSecond() {
        System.out.println(FingerprintThroughput.report());
    }
}
