package io.simdex.router.index;

import io.simdex.core.text.MinHashSketch;
import io.simdex.router.index.IndexRouter.Hit;
import io.simdex.router.index.IndexRouter.Nearest;
import io.simdex.router.index.IndexRouter.TextChecks;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.server.store.FingerprintSketch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.simdex.router.shard.Fanout.pick;

/**
 * Verification of a text's SimHash candidates by what the text store keeps of them: two short
 * texts by their exact shingle Jaccard ({@link ShortTextRule}), otherwise by their sketches'
 * estimate ({@link SketchRule}). A sketch is kept by fingerprint ({@link FingerprintSketch}:
 * every id of a fingerprint is judged by the sketch of the last text stored with it, read once);
 * one stored before that, by its id. A candidate with nothing stored (a document given as a
 * fingerprint), or a probe without a text, falls back to the request's distance, as without
 * verification.
 */
final class TextVerification {
    private final ShardClient[] shards;
    private final Placement placement;

    TextVerification(ShardClient[] shards, Placement placement) {
        this.shards = shards;
        this.placement = placement;
    }

    /**
     * Keeps, for items with something to verify, the candidates that pass, and counts those (of
     * the candidates examined: each fingerprint's ids up to the limit); for the other items,
     * those within k, and counts every stored id within k. A hit with a similarity already
     * ({@link LocalQuery} judged its fingerprint) is kept as it is; {@code fingerprintsRead}
     * says the sketches kept by fingerprint were read there, so the other hits have none.
     */
    List<Nearest> verify(String c, Window w, List<Candidates> candidates, int k, TextChecks checks, boolean fingerprintsRead) {
        int[] fpSlots = new int[hitsToVerify(candidates, checks)];
        String[] byFingerprint = fingerprintsRead ? new String[0] : byFingerprint(c, w, candidates, checks, fpSlots);
        // Each hit left gets the slot of its id (ids repeat across a batch's items): one map
        // operation per hit, and the stored values are read by slot.
        Map<String, Integer> slotOf = new HashMap<>();
        List<String> ids = new ArrayList<>();
        int[] slots = new int[fpSlots.length];
        for (int i = 0, n = 0; i < candidates.size(); i++) {
            if (checks.verifies(i)) {
                for (Hit h : candidates.get(i).hits()) {
                    slots[n] = -1;
                    if (h.similarity() < 0 && (fingerprintsRead || fpSlots[n] < 0 || byFingerprint[fpSlots[n]] == null)) {
                        Integer slot = slotOf.putIfAbsent(h.id(), ids.size());
                        if (slot == null) {
                            slot = ids.size();
                            ids.add(h.id());
                        }
                        slots[n] = slot;
                    }
                    n++;
                }
            }
        }
        String[] stored = stored(c, w, ids.toArray(new String[0]));
        List<Nearest> out = new ArrayList<>(candidates.size());
        for (int i = 0, n = 0; i < candidates.size(); i++) {
            if (!checks.verifies(i)) {
                Candidates cs = candidates.get(i);
                List<Hit> within = cs.hits().stream().filter(h -> h.distance() <= k).toList();
                out.add(within.isEmpty() ? Nearest.NONE : new Nearest(within, cs.within(k)));
                continue;
            }
            List<Hit> kept = new ArrayList<>();
            for (Hit h : candidates.get(i).hits()) {
                double sim;
                if (h.similarity() >= 0) {
                    sim = h.similarity();
                } else if (slots[n] < 0) {
                    SketchRule rule = checks.sketchRule(i);
                    double est = rule.estimateKeptByFingerprint(checks.sketch(i), byFingerprint[fpSlots[n]]);
                    sim = rule.keeps(h.distance(), est) ? est : -1;
                } else {
                    sim = similarity(checks, i, checks.sketchRule(i), stored[slots[n]], h.distance(), k);
                }
                n++;
                if (sim >= 0) {
                    kept.add(sim > 1 || h.similarity() >= 0 ? h : new Hit(h.id(), h.fingerprint(), h.distance(), sim));
                }
            }
            out.add(new Nearest(kept, kept.size()));
        }
        return out;
    }

    /**
     * The sketches kept by fingerprint for the hits not yet judged of items with a sketch
     * (null: none kept), one read per distinct fingerprint; {@code fpSlots[n]} is hit n's slot in
     * the answer, -1 for hits not looked up.
     */
    private String[] byFingerprint(String c, Window w, List<Candidates> candidates, TextChecks checks, int[] fpSlots) {
        Map<Long, Integer> slotOf = new HashMap<>();
        List<String> keys = new ArrayList<>();
        int probes = 0;
        for (int i = 0, n = 0; i < candidates.size(); i++) {
            probes += checks.verifies(i) && checks.sketch(i) != null ? 1 : 0;
            if (checks.verifies(i)) {
                for (Hit h : candidates.get(i).hits()) {
                    int slot = -1;
                    if (h.similarity() < 0 && checks.sketch(i) != null) {
                        slot = slotOf.computeIfAbsent(h.fingerprint(), fp -> {
                            keys.add(FingerprintSketch.key(fp));
                            return keys.size() - 1;
                        });
                    }
                    fpSlots[n++] = slot;
                }
            }
        }
        SketchReads.probes(probes);
        SketchReads.reads(keys.size());
        return stored(c, w, keys.toArray(new String[0]));
    }

    /**
     * Whether item i's candidate at {@code distance}, with {@code stored} kept for it (null:
     * nothing), is a duplicate by {@code rule} (the item's sketch rule, or that of its second
     * probe; null when it has no sketch): its verified similarity if so, {@link #UNVERIFIED} if
     * kept by distance alone, -1 if not.
     */
    static double similarity(TextChecks checks, int i, SketchRule rule, String stored, int distance, int k) {
        return similarity(checks, i, rule, stored, false, distance, k);
    }

    /**
     * As {@link #similarity}, against {@code stored} of a document this request stores before
     * item i, whose fingerprint keeps {@code kept} of it ({@link SketchRule#keptByFingerprint}:
     * 5 bits a bin, where the request holds 6; null: kept by id as it is): judged as the store
     * judges it once stored, so a text is decided alike against an earlier text of its request
     * and against that text stored (the full bins estimated 0.424 where the kept ones gave
     * 0.432, and at 0.4 decided otherwise).
     */
    static double similarityOnceStored(TextChecks checks, int i, SketchRule rule, String stored, String kept, int distance, int k) {
        return kept != null ? similarity(checks, i, rule, kept, true, distance, k) : similarity(checks, i, rule, stored, false, distance, k);
    }

    private static double similarity(TextChecks checks, int i, SketchRule rule, String stored, boolean keptByFingerprint,
                                     int distance, int k) {
        if (stored == null) {
            return distance <= k ? UNVERIFIED : -1;
        }
        String text = checks.texts()[i];
        ShortTextRule shortRule = checks.shortRule();
        if (text != null && !SketchRule.isSketch(stored) && shortRule.applies(stored)) {
            double sim = shortRule.similarity(text, stored);
            return distance <= shortRule.candidateDistance() && sim >= shortRule.minJaccard() ? sim : -1;
        }
        MinHashSketch sketch = checks.sketch(i);
        if (sketch != null) {
            double est = keptByFingerprint ? rule.estimateKeptByFingerprint(sketch, stored) : rule.estimate(sketch, stored);
            return rule.keeps(distance, est) ? est : -1;
        }
        return distance <= k ? UNVERIFIED : -1;
    }

    /** How many hits the items with something to verify have. */
    private static int hitsToVerify(List<Candidates> candidates, TextChecks checks) {
        int n = 0;
        for (int i = 0; i < candidates.size(); i++) {
            n += checks.verifies(i) ? candidates.get(i).hits().size() : 0;
        }
        return n;
    }

    /** What {@link #similarity} returns for a candidate kept by distance alone. */
    static final double UNVERIFIED = 2;

    /** Stored texts and sketches of ids (null: none), at their owners, in the window's generations. */
    private String[] stored(String c, Window w, String[] ids) {
        return stored(c, w.live(), ids);
    }

    /** Stored texts and sketches of ids (null: none), at their owners, in {@code generations}. */
    String[] stored(String c, long[] generations, String[] ids) {
        Fanout f = Fanout.start();
        String[] out = stored(f, c, generations, ids);
        f.await();
        return out;
    }

    /** As {@link #stored(String, long[], String[])}, the answers filled in once {@code f} is awaited. */
    String[] stored(Fanout f, String c, long[] generations, String[] ids) {
        String[] out = new String[ids.length];
        if (ids.length == 0) {
            return out;
        }
        f.toOwners(shards, ids.length, i -> placement.ownerOfId(ids[i]), (shard, group) -> shard.getTexts(c, generations, pick(ids, group)),
                (group, texts) -> {
                    // Groups fill disjoint slots.
                    for (int i = 0; i < group.length; i++) {
                        out[group[i]] = texts[i];
                    }
                });
        return out;
    }
}
