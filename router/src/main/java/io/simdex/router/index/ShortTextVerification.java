package io.simdex.router.index;

import io.simdex.router.index.IndexRouter.Hit;
import io.simdex.router.index.IndexRouter.Nearest;
import io.simdex.router.index.IndexRouter.ShortTexts;
import io.simdex.router.shard.Fanout;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static io.simdex.router.shard.Fanout.pick;

/**
 * Short-text verification: SimHash candidates of a short text (found up to the rule's candidate
 * distance) are kept only when the stored text's shingle Jaccard reaches the rule's minimum;
 * candidates with no stored text (documents given as fingerprints) are kept within the
 * request's distance, as without verification.
 */
final class ShortTextVerification {
    private final ShardClient[] shards;
    private final Placement placement;

    ShortTextVerification(ShardClient[] shards, Placement placement) {
        this.shards = shards;
        this.placement = placement;
    }

    /**
     * Keeps, for short items, the candidates whose stored text is similar enough, and counts
     * those (of the candidates examined: each fingerprint's ids up to the limit); for the other
     * items, those within k, and counts every stored id within k.
     */
    List<Nearest> verify(String c, Window w, List<Candidates> candidates, int k, ShortTexts st) {
        Map<String, String> stored = texts(c, w, IntStream.range(0, candidates.size()).filter(i -> st.texts()[i] != null)
                .boxed().flatMap(i -> candidates.get(i).hits().stream().map(Hit::id)).distinct().toArray(String[]::new));
        List<Nearest> out = new ArrayList<>(candidates.size());
        for (int i = 0; i < candidates.size(); i++) {
            List<Hit> kept = new ArrayList<>();
            for (Hit h : candidates.get(i).hits()) {
                String text = st.texts()[i] == null ? null : stored.get(h.id());
                if (text != null) {
                    double sim = st.rule().similarity(st.texts()[i], text);
                    if (sim >= st.rule().minJaccard()) {
                        kept.add(new Hit(h.id(), h.fingerprint(), h.distance(), sim));
                    }
                } else if (h.distance() <= k) {
                    kept.add(h);
                }
            }
            out.add(new Nearest(kept, st.texts()[i] == null ? candidates.get(i).within(k) : kept.size()));
        }
        return out;
    }

    /** Stored short texts of ids, at their owners, in the window's generations. */
    private Map<String, String> texts(String c, Window w, String[] ids) {
        Map<String, String> out = new HashMap<>();
        Fanout f = Fanout.start();
        f.toOwners(shards, ids.length, i -> placement.ownerOfId(ids[i]), (shard, group) -> shard.getTexts(c, w.live(), pick(ids, group)),
                (group, texts) -> {
                    synchronized (out) {
                        for (int i = 0; i < group.length; i++) {
                            if (texts[i] != null) {
                                out.put(ids[group[i]], texts[i]);
                            }
                        }
                    }
                });
        f.await();
        return out;
    }
}
