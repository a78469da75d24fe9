package io.simdex.core.crawl;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * Nutch's exact deduplication of a crawl batch as a pure function: for each record, keep or
 * drop, why, and which record won. Linear time (one hash map per rule).
 *
 * <p>Each rule sees only the records that earlier rules kept, as Nutch's md5 job sees only the
 * url job's survivors. {@link #apply(List)} uses Nutch's order, URL then content; the
 * package comment explains why the order matters when URLs and contents are m:n.
 *
 * <p>Invariants of the result, whatever the order: at most one kept record per URL and per
 * content hash; every dropped record's winner has the same URL (URL rule) or the same content
 * (content rule) and was alive when the rule ran; the result does not depend on the input
 * order except through the last tie-break (input position) between records equal in every
 * field.
 */
public final class NutchDedup {
    private static final List<Rule> NUTCH_ORDER = List.of(Rule.URL, Rule.CONTENT);

    private NutchDedup() {
    }

    /** The URL rule, then the content rule, as Nutch runs them. One verdict per record, in input order. */
    public static List<Verdict> apply(List<CrawlRecord> records) {
        return apply(records, NUTCH_ORDER);
    }

    /**
     * The rules in {@code order}, each over the survivors of those before it.
     *
     * @throws IllegalArgumentException if an argument or a record is null, or a rule repeats
     */
    public static List<Verdict> apply(List<CrawlRecord> records, List<Rule> order) {
        if (records == null || order == null || records.stream().anyMatch(Objects::isNull)
                || order.stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException("records, order and their elements must be non-null");
        }
        if (order.stream().distinct().count() != order.size()) {
            throw new IllegalArgumentException("a rule may appear once, order was " + order);
        }
        Verdict[] verdicts = new Verdict[records.size()];
        for (int i = 0; i < verdicts.length; i++) {
            verdicts[i] = new Verdict(Verdict.Reason.KEPT, i);
        }
        for (Rule rule : order) {
            switch (rule) {
                case URL -> dropLosers(records, verdicts, CrawlRecord::url, urlOrder(records),
                        Verdict.Reason.OLDER_FETCH_OF_URL);
                case CONTENT -> dropLosers(records, verdicts, CrawlRecord::content, contentOrder(records),
                        Verdict.Reason.DUPLICATE_CONTENT);
            }
        }
        return List.of(verdicts);
    }

    /**
     * The kept record that dropped record {@code index} resolves to, following winners; the
     * record itself when kept.
     */
    public static int survivor(List<Verdict> verdicts, int index) {
        int at = index;
        // Each step moves to a record that survived a later rule, so the chain ends in at most
        // one step per rule; the bound only guards against verdicts not made by apply.
        for (int steps = 0; !verdicts.get(at).keep(); steps++) {
            if (steps > Rule.values().length) {
                throw new IllegalArgumentException("verdicts form a cycle at " + index);
            }
            at = verdicts.get(at).winner();
        }
        return at;
    }

    /** Positions of the kept records, ascending. */
    public static int[] kept(List<Verdict> verdicts) {
        return IntStream.range(0, verdicts.size()).filter(i -> verdicts.get(i).keep()).toArray();
    }

    private static <K> void dropLosers(List<CrawlRecord> records, Verdict[] verdicts, Function<CrawlRecord, K> key,
                                       Comparator<Integer> better, Verdict.Reason reason) {
        Map<K, Integer> best = new HashMap<>();
        for (int i = 0; i < verdicts.length; i++) {
            if (verdicts[i].keep()) {
                best.merge(key.apply(records.get(i)), i, (a, b) -> better.compare(a, b) <= 0 ? a : b);
            }
        }
        for (int i = 0; i < verdicts.length; i++) {
            if (verdicts[i].keep()) {
                int winner = best.get(key.apply(records.get(i)));
                if (winner != i) {
                    verdicts[i] = new Verdict(reason, winner);
                }
            }
        }
    }

    /** Best first: newest fetch, highest score, smallest content hash, earliest position. */
    private static Comparator<Integer> urlOrder(List<CrawlRecord> r) {
        Comparator<Integer> newest = (a, b) -> Long.compare(r.get(b).fetchTime(), r.get(a).fetchTime());
        return newest.thenComparing((a, b) -> Double.compare(r.get(b).score(), r.get(a).score()))
                .thenComparing(i -> r.get(i).content())
                .thenComparing(Comparator.naturalOrder());
    }

    /** Best first: highest score, shortest URL, smallest URL, newest fetch, earliest position. */
    private static Comparator<Integer> contentOrder(List<CrawlRecord> r) {
        Comparator<Integer> highest = (a, b) -> Double.compare(r.get(b).score(), r.get(a).score());
        return highest.thenComparingInt(i -> r.get(i).url().length())
                .thenComparing(i -> r.get(i).url())
                .thenComparing((a, b) -> Long.compare(r.get(b).fetchTime(), r.get(a).fetchTime()))
                .thenComparing(Comparator.naturalOrder());
    }
}
