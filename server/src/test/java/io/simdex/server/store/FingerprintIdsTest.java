package io.simdex.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FingerprintIdsTest {
    private static final long HOT = 0x5eed_5eed_5eed_5eedL;

    @TempDir
    Path dir;

    @Test
    void oneFingerprint_manyIds_matchesAReferenceSet_throughGrowthShrinkAndReopen() {
        Random rnd = new Random(7);
        Set<String> expected = new HashSet<>();
        int n = 40_000;
        try (DocMaps docs = new DocMaps(dir, 1024, 16, true)) {
            assertTrue(docs.attach(HOT, "id-0"), "the first id of a fingerprint");
            expected.add("id-0");
            for (int i = 1; i < n; i++) {
                assertFalse(docs.attach(HOT, "id-" + i));
                expected.add("id-" + i);
            }
            assertFalse(docs.attach(HOT, "id-17"), "an id attached twice is there once");
            assertSame(expected, docs);
            for (int i = 0; i < n; i++) {
                if (rnd.nextInt(4) != 0) {
                    assertFalse(docs.detach(HOT, "id-" + i));
                    expected.remove("id-" + i);
                }
            }
            assertFalse(docs.detach(HOT, "never-attached"));
            assertSame(expected, docs);
        }
        // Reopened without a clean close, as after kill -9: recovered, and the same.
        try (DocMaps docs = new DocMaps(dir, 1024, 16, false)) {
            assertSame(expected, docs);
            List<String> left = new ArrayList<>(expected);
            for (int i = 0; i < left.size() - 3; i++) {
                assertFalse(docs.detach(HOT, left.get(i)));
                expected.remove(left.get(i));
            }
            assertSame(expected, docs);
            assertEquals(1, docs.fingerprints(), "back to a small value");
            for (String id : new ArrayList<>(expected)) {
                boolean last = expected.size() == 1;
                assertEquals(last, docs.detach(HOT, id), "detach reports the last id");
                expected.remove(id);
            }
            assertEquals(0, docs.ids(HOT, 0).total());
            assertEquals(0, docs.fingerprints());
            assertTrue(docs.attach(HOT, "again"), "a fingerprint whose ids all left is new again");
        }
    }

    @Test
    void hotFingerprint_bucketsStayNearTheirSize() {
        try (DocMaps docs = new DocMaps(dir, 1024, 16, true)) {
            int n = 30_000;
            for (int i = 0; i < n; i++) {
                docs.attach(HOT, "doc-" + i);
            }
            FingerprintIds.Header h = FingerprintIds.Header.parse(docs.fpToIds().fps().get(HOT));
            assertEquals(n, h.count());
            assertTrue(h.buckets() >= n / FingerprintIds.BUCKET_IDS, h + ": split as the ids grew");
            int largest = 0;
            for (int b = 0; b < h.buckets(); b++) {
                largest = Math.max(largest, FingerprintIds.split(docs.fpToIds().hot().get(HOT, b)).length);
            }
            // What one write rewrites: a bucket, not the fingerprint's 30,000 ids.
            assertTrue(largest <= 4 * FingerprintIds.BUCKET_IDS, "largest bucket holds " + largest + " ids");
        }
    }

    @Test
    void idsLeftInAnOldBucketByACutSplit_areNeverListed_norComeBackAfterTheirRemoval() {
        Set<String> expected = new TreeSet<>();
        try (DocMaps docs = new DocMaps(dir, 1024, 16, true)) {
            for (int i = 0; i < 300; i++) {
                docs.attach(HOT, "u" + i);
                expected.add("u" + i);
            }
            FingerprintIds ids = docs.fpToIds();
            FingerprintIds.Header h = FingerprintIds.Header.parse(ids.fps().get(HOT));
            assertTrue(h.buckets() > 2, h.toString());
            // A split killed before its trim: bucket 0 still holds the ids that moved to bucket 2^level.
            int moved = 1 << h.level();
            String[] movedIds = FingerprintIds.split(ids.hot().get(HOT, moved));
            assertTrue(movedIds.length > 0);
            ids.hot().put(HOT, 0, ids.hot().get(HOT, 0) + "\n" + String.join("\n", movedIds));
            assertSame(expected, docs);

            for (String id : movedIds) {
                docs.detach(HOT, id);
                expected.remove(id);
            }
            assertSame(expected, docs);
            // Shrinking merges bucket 2^level back into bucket 0: the stale copies must not return.
            List<String> rest = new ArrayList<>(expected);
            for (String id : rest.subList(0, rest.size() - 20)) {
                docs.detach(HOT, id);
                expected.remove(id);
            }
            assertSame(expected, docs);
            for (String id : movedIds) {
                assertFalse(Arrays.asList(docs.ids(HOT)).contains(id), id + " was removed");
            }
        }
    }

    @Test
    void limit_returnsThatManyDistinctIds_andTheTotal() {
        try (DocMaps docs = new DocMaps(dir, 1024, 16, true)) {
            for (int i = 0; i < 5_000; i++) {
                docs.attach(HOT, "p" + i);
            }
            for (int limit : new int[]{1, 7, 100, 4_999, 5_000, 6_000}) {
                DocMaps.IdList got = docs.ids(HOT, limit);
                assertEquals(Math.min(limit, 5_000), got.ids().length, "limit " + limit);
                assertEquals(got.ids().length, new HashSet<>(Arrays.asList(got.ids())).size(), "distinct");
                assertEquals(5_000, got.total());
            }
            docs.attach(7L, "a");
            docs.attach(7L, "b");
            docs.attach(7L, "c");
            assertEquals(List.of("a", "b"), Arrays.asList(docs.ids(7L, 2).ids()));
            assertEquals(3, docs.ids(7L, 2).total());
        }
    }

    @Test
    void exportAndDrop_coverHotFingerprints() {
        try (DocMaps docs = new DocMaps(dir, 1024, 16, true)) {
            for (int i = 0; i < 1_000; i++) {
                docs.attach(HOT, "h" + i);
            }
            docs.attach(9L, "small");
            Set<String> pairs = new HashSet<>();
            docs.forEachAttachment((id, fp) -> assertTrue(pairs.add(fp + "/" + id), "each pair once"));
            assertEquals(1_001, pairs.size());
            assertEquals(1_000, docs.detachIf(fp -> fp == HOT));
            assertEquals(0, docs.ids(HOT, 0).total());
            assertEquals(0, docs.fpToIds().hot().size(), "a dropped hot fingerprint's buckets go too");
            assertEquals(List.of("small"), Arrays.asList(docs.ids(9L)));
        }
    }

    /**
     * A kill can leave an entry half rewritten: in a map with entry checksums (hot buckets, and
     * fingerprint maps created with them) recovery drops it, in one without (the fingerprint
     * map, {@link IdEntrySegments}) it stays, holding whatever bytes the kill left.
     * Each kind of change (append to a small value, turning hot, a hot add, a split, a removal
     * that turns the fingerprint small again) is cut before each of its map writes and in the
     * middle of each, where the entry it was writing is either dropped, as recovery would, or
     * left holding ids that were never written to it; then the maps are reopened as after kill -9.
     * Every id acknowledged before is still listed, the cut id is listed or not, the total counts
     * what is listed, and retrying the cut change converges to the same ids and total as an
     * uncut run.
     */
    @Test
    void aWriteCutByAKill_isRedoneWhole_everyAcknowledgedIdStays() throws IOException {
        List<Change> changes = List.of(
                new Change("append to a small value", 5, 0, true, "cut"),
                new Change("the 17th id turns it hot", FingerprintIds.SMALL_MAX, 0, true, "cut"),
                new Change("a hot add", 40, 0, true, "cut"),
                new Change("a hot add that splits", FingerprintIds.BUCKET_IDS, 0, true, "cut"),
                new Change("a hot removal", 40, 0, false, "id-7"),
                new Change("a removal that turns it small", FingerprintIds.SMALL_MAX + 1, FingerprintIds.SMALL_MAX / 2, false, "id-0"));
        int runs = 0;
        for (boolean torn : new boolean[]{false, true}) {
            for (Change c : changes) {
                runs += cutEachWrite(c, torn);
            }
        }
        assertTrue(runs >= 48, runs + " cuts");
    }

    /** A change to cut: {@code attached} ids, then the last {@code detached} of them removed, then {@code id} attached or removed. */
    private record Change(String name, int attached, int detached, boolean attach, String id) {
    }

    /**
     * Cuts {@code c} at each of its map writes in turn (a recorded write in its middle: its entry
     * dropped, or left {@code torn}), reopens the maps and checks them; returns how many cuts.
     */
    private int cutEachWrite(Change c, boolean torn) throws IOException {
        int cuts = 0;
        for (int cutAt = 1; ; cutAt++) {
            Path d = Files.createDirectories(dir.resolve(c.name().replace(' ', '-') + "-" + cutAt + (torn ? "-torn" : "")));
            Set<String> before = new TreeSet<>();
            boolean cut;
            try (DocMaps docs = new DocMaps(d, 1024, 16, true)) {
                for (int i = 0; i < c.attached(); i++) {
                    docs.attach(HOT, "id-" + i);
                    before.add("id-" + i);
                }
                for (int i = c.attached() - c.detached(); i < c.attached(); i++) {
                    docs.detach(HOT, "id-" + i);
                    before.remove("id-" + i);
                }
                assertSame(before, docs);
                FingerprintIds ids = docs.fpToIds();
                int[] writes = {0};
                int stopAt = cutAt;
                ids.beforeMapWrite((fp, bucket, recorded) -> {
                    // A write not recorded: a kill before it. A recorded one: a kill in its
                    // middle, whose entry recovery drops, or which a map without entry
                    // checksums keeps torn.
                    if (++writes[0] == stopAt) {
                        if (recorded) {
                            if (bucket < 0 && torn) {
                                ids.fps().put(fp, "torn-1\ntorn-2");
                            } else if (bucket < 0) {
                                ids.fps().remove(fp);
                            } else {
                                ids.hot().remove(fp, bucket);
                            }
                        }
                        throw new IllegalStateException("killed");
                    }
                });
                cut = cutsShort(() -> change(docs, c.attach(), c.id()));
            }
            if (!cut) {
                assertTrue(cutAt > 1, c.name() + " writes a recorded entry");
                break;
            }
            cuts++;
            Set<String> after = new TreeSet<>(before);
            if (c.attach()) {
                after.add(c.id());
            } else {
                after.remove(c.id());
            }
            try (DocMaps docs = new DocMaps(d, 1024, 16, false)) {
                DocMaps.IdList listed = docs.ids(HOT, 0);
                Set<String> got = new TreeSet<>(Arrays.asList(listed.ids()));
                assertEquals(listed.ids().length, got.size(), c.name() + ", write " + cutAt + ": an id listed twice");
                Set<String> must = new TreeSet<>(before);
                must.retainAll(after);
                assertTrue(got.containsAll(must), c.name() + ", write " + cutAt + ": lost " + difference(must, got));
                Set<String> may = new TreeSet<>(before);
                may.addAll(after);
                assertTrue(may.containsAll(got), c.name() + ", write " + cutAt + ": invented " + difference(got, may));
                assertEquals(got.size(), listed.total(), c.name() + ", write " + cutAt + ": the total counts what is listed");
                change(docs, c.attach(), c.id());
                assertEquals(after, new TreeSet<>(Arrays.asList(docs.ids(HOT))), c.name() + ", write " + cutAt + ", retried");
                assertEquals(after.size(), docs.ids(HOT, 0).total(), c.name() + ", write " + cutAt + ", retried: total");
            }
        }
        return cuts;
    }

    private static void change(DocMaps docs, boolean attach, String id) {
        if (attach) {
            docs.attach(HOT, id);
        } else {
            docs.detach(HOT, id);
        }
    }

    private static boolean cutsShort(Runnable r) {
        try {
            r.run();
            return false;
        } catch (IllegalStateException e) {
            assertEquals("killed", e.getMessage());
            return true;
        }
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> d = new TreeSet<>(a);
        d.removeAll(b);
        return d;
    }

    private static void assertSame(Set<String> expected, DocMaps docs) {
        DocMaps.IdList all = docs.ids(HOT, 0);
        List<String> got = Arrays.asList(all.ids());
        assertEquals(expected.size(), got.size(), "no id listed twice, none missing");
        assertEquals(expected, new HashSet<>(got));
        assertEquals(expected.size(), all.total());
    }
}
