package io.simdex.server;

import io.simdex.core.Partitions;
import io.simdex.fingerprint.BitFlips;
import io.simdex.fingerprint.BlockTables;
import io.simdex.server.store.CollectionStore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.IntPredicate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Random shard contents kept as plain lists (the reference model): loaded into a node through
 * its ordinary write paths, then checked record by record against a node that should hold
 * exactly the records of some partitions.
 */
final class ReferenceContents {
    record Doc(String collection, long generation, String id, long fp) {
    }

    record Content(String collection, long generation, byte[] hash, long fp) {
    }

    record Text(String collection, long generation, String id, String text) {
    }

    record Url(String job, byte[] hash, long expiresAt) {
    }

    /** Collection -> its generations, as loaded. */
    static final Map<String, long[]> GENERATIONS = Map.of("news", new long[]{0}, "mail", new long[]{3, 4});
    static final List<String> JOBS = List.of("crawl-a", "crawl-b");

    final List<Doc> docs = new ArrayList<>();
    final List<Content> contents = new ArrayList<>();
    final List<Text> texts = new ArrayList<>();
    final List<Url> urls = new ArrayList<>();

    /**
     * About {@code perGeneration} fingerprints in each generation: mostly uniform, plus a crowd
     * sharing block 0 (a bucket of many pages) and near-duplicates; every fifth fingerprint has a
     * second id, a third of the documents a content hash, a quarter a short text.
     */
    static ReferenceContents random(long seed, int perGeneration, int urlsPerJob) {
        SplittableRandom random = new SplittableRandom(seed);
        ReferenceContents r = new ReferenceContents();
        Set<Long> used = new HashSet<>();
        List<Long> earlier = new ArrayList<>();
        int n = 0;
        for (String collection : new TreeSet<>(GENERATIONS.keySet())) {
            for (long g : GENERATIONS.get(collection)) {
                for (int i = 0; i < perGeneration; i++) {
                    long fp = i % 50 == 0 ? (random.nextLong() & ~0xFFFFL) | 0x0BEE
                            : i % 7 == 0 && !earlier.isEmpty() ? BitFlips.flip(earlier.get(random.nextInt(earlier.size())), 1 + random.nextInt(3), random)
                            : random.nextLong();
                    if (!used.add(fp)) {
                        continue;
                    }
                    earlier.add(fp);
                    String id = collection + "-" + (n++);
                    r.docs.add(new Doc(collection, g, id, fp));
                    if (i % 5 == 0) {
                        r.docs.add(new Doc(collection, g, id + "-copy", fp));
                    }
                    if (i % 3 == 0) {
                        r.contents.add(new Content(collection, g, bytes(random), fp));
                    }
                    if (i % 4 == 0) {
                        r.texts.add(new Text(collection, g, id, "text of " + id + " " + random.nextInt()));
                    }
                }
            }
        }
        for (String job : JOBS) {
            for (int i = 0; i < urlsPerJob; i++) {
                r.urls.add(new Url(job, bytes(random), 1_700_000_000L + random.nextInt(1000)));
            }
        }
        return r;
    }

    private static byte[] bytes(SplittableRandom random) {
        byte[] b = new byte[16];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    /** Writes everything into {@code node} as the router would: buckets, bindings, attachments, content, texts, URLs. */
    void loadInto(ShardNode node) {
        for (Doc d : docs) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                node.bucketAdd(d.collection, d.generation, t, new long[]{d.fp});
            }
            node.bindIds(d.collection, d.generation, new String[]{d.id}, new long[]{d.fp});
            node.attachIds(d.collection, d.generation, new long[]{d.fp}, new String[]{d.id});
        }
        for (Content c : contents) {
            node.recordContent(c.collection, c.generation, new byte[][]{c.hash}, new long[]{c.fp});
        }
        for (Text t : texts) {
            node.putTexts(t.collection, t.generation, new String[]{t.id}, new String[]{t.text});
        }
        for (Url u : urls) {
            node.checkUrls(u.job, new byte[][]{u.hash}, 0, u.expiresAt, false);
        }
    }

    /** Records whose partition {@code expected} accepts, counted as PullProgress and DropPartitions count them. */
    long records(IntPredicate expected) {
        long n = bucketEntries(expected).size();
        for (Doc d : docs) {
            n += expected.test(Partitions.ofId(d.id)) ? 1 : 0;
            n += expected.test(Partitions.ofFingerprint(d.fp)) ? 1 : 0;
        }
        n += contents.stream().filter(c -> expected.test(Partitions.ofContentHash(c.hash))).count();
        n += texts.stream().filter(t -> expected.test(Partitions.ofId(t.id))).count();
        n += urls.stream().filter(u -> expected.test(Partitions.ofUrlHash(u.hash))).count();
        return n;
    }

    /** "collection/generation/table/fp" of every expected bucket entry: a fingerprint with two ids is one entry. */
    private Set<String> bucketEntries(IntPredicate expected) {
        Set<String> out = new HashSet<>();
        for (Doc d : docs) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                if (expected.test(Partitions.ofBucket(t, BlockTables.block(d.fp, t)))) {
                    out.add(d.collection + "/" + d.generation + "/" + t + "/" + d.fp);
                }
            }
        }
        return out;
    }

    /**
     * Asserts that {@code node} holds exactly the records whose partition {@code expected}
     * accepts: each record is looked up, and every map's size is compared, so a stray record
     * outside the reference fails too.
     */
    void assertHeldExactly(ShardNode node, IntPredicate expected, String label) {
        ShardNode.Matches found = new ShardNode.Matches();
        Map<String, Long> bindings = new HashMap<>();
        Map<String, Set<String>> idsOf = new HashMap<>();
        for (Doc d : docs) {
            for (int t = 0; t < BlockTables.TABLES; t++) {
                boolean want = expected.test(Partitions.ofBucket(t, BlockTables.block(d.fp, t)));
                found.clear();
                node.probe(d.collection, new long[]{d.generation}, t, d.fp, 0, found);
                assertEquals(want ? 1 : 0, found.fps().size(), label + ": bucket entry " + d + " table " + t);
            }
            boolean bound = expected.test(Partitions.ofId(d.id));
            CollectionStore store = node.collection(d.collection).existing(d.generation);
            OptionalLong binding = store == null ? OptionalLong.empty() : store.docs().fingerprintOf(d.id);
            assertEquals(bound ? OptionalLong.of(d.fp) : OptionalLong.empty(), binding, label + ": binding of " + d);
            bindings.merge(d.collection, bound ? 1L : 0L, Long::sum);
            if (expected.test(Partitions.ofFingerprint(d.fp))) {
                idsOf.computeIfAbsent(d.collection + "/" + d.generation + "/" + d.fp, k -> new TreeSet<>()).add(d.id);
            }
        }
        for (Doc d : docs) {
            Set<String> want = idsOf.getOrDefault(d.collection + "/" + d.generation + "/" + d.fp, Set.of());
            String[] got = node.resolveIds(d.collection, new long[]{d.generation}, new long[]{d.fp})[0];
            assertEquals(want, new TreeSet<>(Arrays.asList(got)), label + ": ids of " + d);
        }
        Set<String> entries = bucketEntries(expected);
        for (String collection : GENERATIONS.keySet()) {
            ShardNode.ShardStats stats = node.stats(collection, 0);
            long wantEntries = entries.stream().filter(k -> k.startsWith(collection + "/")).count();
            assertEquals(wantEntries, stats.bucketEntries(), label + ": bucket entries of " + collection);
            assertEquals((long) bindings.get(collection), stats.documents(), label + ": bindings of " + collection);
            long wantFps = idsOf.keySet().stream().filter(k -> k.startsWith(collection + "/")).count();
            assertEquals(wantFps, stats.fingerprints(), label + ": fingerprints with ids in " + collection);
        }
        assertContentsAndTexts(node, expected, label);
        assertUrls(node, expected, label);
    }

    private void assertContentsAndTexts(ShardNode node, IntPredicate expected, String label) {
        long wantContents = 0;
        for (Content c : contents) {
            boolean want = expected.test(Partitions.ofContentHash(c.hash));
            ShardNode.Found f = node.lookupContent(c.collection, new long[]{c.generation}, new byte[][]{c.hash});
            assertEquals(want ? c.generation : -1, f.generations()[0], label + ": content " + c);
            if (want) {
                assertEquals(c.fp, f.fingerprints()[0], label + ": content fingerprint " + c);
                wantContents++;
            }
        }
        long wantTexts = 0;
        for (Text t : texts) {
            boolean want = expected.test(Partitions.ofId(t.id));
            String got = node.getTexts(t.collection, new long[]{t.generation}, new String[]{t.id})[0];
            if (want) {
                assertEquals(t.text, got, label + ": text of " + t.id);
                wantTexts++;
            } else {
                assertNull(got, label + ": text of " + t.id);
            }
        }
        long contentsHeld = 0;
        long textsHeld = 0;
        for (String collection : node.collectionNames()) {
            for (Map.Entry<Long, CollectionStore> e : node.collection(collection).from(Long.MIN_VALUE)) {
                contentsHeld += e.getValue().contents().size();
                textsHeld += e.getValue().texts().size();
            }
        }
        assertEquals(wantContents, contentsHeld, label + ": content entries");
        assertEquals(wantTexts, textsHeld, label + ": short texts");
    }

    private void assertUrls(ShardNode node, IntPredicate expected, String label) {
        Map<String, Long> perJob = new HashMap<>();
        for (Url u : urls) {
            boolean want = expected.test(Partitions.ofUrlHash(u.hash));
            boolean[] freshBefore = node.checkUrls(u.job, new byte[][]{u.hash}, u.expiresAt - 1, 0, true);
            boolean[] freshAt = node.checkUrls(u.job, new byte[][]{u.hash}, u.expiresAt, 0, true);
            assertArrayEquals(new boolean[]{!want}, freshBefore, label + ": URL of " + u.job + " before its expiry");
            assertArrayEquals(new boolean[]{true}, freshAt, label + ": URL of " + u.job + " expires at " + u.expiresAt);
            perJob.merge(u.job, want ? 1L : 0L, Long::sum);
        }
        for (String job : JOBS) {
            assertEquals((long) perJob.get(job), node.urlJob(job).size(), label + ": URL entries of " + job);
        }
    }
}
