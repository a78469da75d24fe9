package io.simdex.client;

import io.simdex.proto.v1.DedupResult;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ProtoMapperTest {
    @Test
    void fromProto_dedupResult_keepsSimilarityKnownTextAndSequence() {
        DedupResult r = DedupResult.newBuilder().setId("a2").setFingerprint(9L).setInserted(false)
                .addDuplicates(io.simdex.proto.v1.Match.newBuilder().setId("a1").setFingerprint(8L).setDistance(5).setSimilarity(0.94f))
                .setKnownText(true).setSequence(1234L).build();
        DedupDecision d = ProtoMapper.fromProto(r);
        assertEquals(List.of(new Match("a1", 8L, 5, 0.94f)), d.duplicates());
        assertEquals(true, d.knownText());
        assertEquals(1234L, d.sequence());
    }
}
