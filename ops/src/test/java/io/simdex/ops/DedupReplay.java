package io.simdex.ops;

import io.simdex.fingerprint.Hamming;
import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.Match;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The serial replay of Dedup decisions, as router's DedupRaceTest makes it, allowing for faults:
 * a document whose attempt failed may have been stored by that attempt, before the decisions
 * numbered after it, so an uncertain document that ends kept counts as kept from the start. The
 * others are replayed one at a time in sequence order, and each decision must be what the
 * replay makes: kept if and only if nothing kept so far is within {@link DedupRace#K}, naming
 * exactly those that are.
 */
final class DedupReplay {
    private DedupReplay() {
    }

    /** Exactly one kept in each of {@code groups} groups ({@link DedupRace#tightGroups}), and the replay agrees. */
    static void assertSerial(Collection<DedupResult> decisions, Set<String> uncertain, int groups) {
        Map<Integer, List<String>> keptByGroup = decisions.stream().filter(DedupResult::getInserted)
                .collect(Collectors.groupingBy(d -> group(d.getId()), Collectors.mapping(DedupResult::getId, Collectors.toList())));
        for (int g = 0; g < groups; g++) {
            assertEquals(1, keptByGroup.getOrDefault(g, List.of()).size(), "group " + g + " kept " + keptByGroup.get(g));
        }
        Map<String, Long> keptSoFar = new HashMap<>();
        decisions.stream().filter(d -> d.getInserted() && uncertain.contains(d.getId())).forEach(d -> keptSoFar.put(d.getId(), d.getFingerprint()));
        List<DedupResult> certain = decisions.stream().filter(d -> !uncertain.contains(d.getId()))
                .sorted(Comparator.comparingLong(DedupResult::getSequence)).toList();
        for (DedupResult r : certain) {
            Set<String> near = keptSoFar.entrySet().stream().filter(e -> Hamming.distance(e.getValue(), r.getFingerprint()) <= DedupRace.K)
                    .map(Map.Entry::getKey).collect(Collectors.toSet());
            assertEquals(near.isEmpty(), r.getInserted(), () -> r.getId() + " at sequence " + r.getSequence()
                    + ": serial replay says " + (near.isEmpty() ? "keep" : "duplicate of " + near));
            assertEquals(near, r.getDuplicatesList().stream().map(Match::getId).collect(Collectors.toSet()),
                    () -> r.getId() + " names what was kept before it");
            if (r.getInserted()) {
                keptSoFar.put(r.getId(), r.getFingerprint());
            }
        }
    }

    private static int group(String id) {
        return Integer.parseInt(id.substring(1, id.indexOf('-')));
    }
}
