package io.simdex.router.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * What the public calls decided, counted since the process started: the figures a
 * deduplication pipeline is watched by (what share of its pages are near-duplicates, of its
 * links new), which call rates and stored counts do not give.
 * <pre>
 *   simdex_dedup_documents_total{collection, outcome}  Dedup's documents: inserted, duplicate
 *   simdex_query_probes_total{collection, outcome}     Query's probes: matched (a stored document within reach), unmatched
 *   simdex_urls_checked_total{outcome}                 CheckUrls' URLs: new, seen
 * </pre>
 * A collection's series appear with its first count (the URL counts from the start), and go
 * when it is deleted (through another router of a cluster: within a minute, at the next
 * retention sweep). In a cluster each router counts the calls it answered: sum over routers. A call
 * costs a map lookup by the collection's name and two additions, and allocates nothing once
 * its collection has been counted.
 */
public final class RequestOutcomes {
    private static final String DEDUP = "simdex.dedup.documents";
    private static final String QUERY = "simdex.query.probes";
    private static final String URLS = "simdex.urls.checked";

    /** Two counts of one collection (or of the process), each an outcome. */
    private record Pair(LongAdder first, LongAdder second) {
        Pair() {
            this(new LongAdder(), new LongAdder());
        }

        void add(long a, long b) {
            first.add(a);
            second.add(b);
        }
    }

    private final Map<String, Pair> dedup = new ConcurrentHashMap<>();
    private final Map<String, Pair> query = new ConcurrentHashMap<>();
    private final Pair urls = new Pair();
    /** The series exported for each collection's counts; guarded by this. */
    private final Map<String, List<Meter>> dedupMeters = new HashMap<>();
    private final Map<String, List<Meter>> queryMeters = new HashMap<>();
    private MeterRegistry registry;

    /** A Dedup call's documents: {@code inserted} stored, {@code duplicates} not. */
    public void dedup(String collection, long inserted, long duplicates) {
        dedup.computeIfAbsent(collection, c -> new Pair()).add(inserted, duplicates);
    }

    /** A Query call's probes: {@code matched} found a stored document within reach, {@code unmatched} none. */
    public void query(String collection, long matched, long unmatched) {
        query.computeIfAbsent(collection, c -> new Pair()).add(matched, unmatched);
    }

    /** A CheckUrls call's URLs: {@code fresh} new to the job, {@code seen} not. */
    public void urls(long fresh, long seen) {
        urls.add(fresh, seen);
    }

    /** Exports the counts on {@code endpoint}: each collection's from the first scrape after its first count. */
    public void bindTo(MetricsEndpoint endpoint) {
        register(endpoint.registry(), URLS, Tags.empty(), "new", "seen", urls,
                "URLs CheckUrls answered, by outcome: new (not seen, or expired), seen");
        synchronized (this) {
            registry = endpoint.registry();
        }
        endpoint.beforeScrape(this::exportNew);
    }

    private synchronized void exportNew() {
        dedup.forEach((c, pair) -> dedupMeters.computeIfAbsent(c, n -> register(registry, DEDUP, Tags.of("collection", c), "inserted",
                "duplicate", pair, "Documents Dedup decided, by collection and outcome: inserted, duplicate")));
        query.forEach((c, pair) -> queryMeters.computeIfAbsent(c, n -> register(registry, QUERY, Tags.of("collection", c), "matched",
                "unmatched", pair, "Query probes answered, by collection and outcome: matched (a stored document within reach), unmatched")));
    }

    /** Drops the counts and series of {@code collection}, deleted: a name made again counts from 0. */
    public void forget(String collection) {
        forgetIf(collection::equals);
    }

    /**
     * Drops the counts and series of every collection not in {@code live} (the catalog's: those
     * another router of a cluster deleted). A call counted for a collection made after
     * {@code live} was read starts its count again, which rate() reads as a counter reset.
     */
    public void retainOnly(Set<String> live) {
        forgetIf(c -> !live.contains(c));
    }

    private synchronized void forgetIf(Predicate<String> gone) {
        dedup.keySet().removeIf(gone);
        query.keySet().removeIf(gone);
        for (Map<String, List<Meter>> meters : List.of(dedupMeters, queryMeters)) {
            meters.entrySet().removeIf(e -> {
                if (gone.test(e.getKey())) {
                    e.getValue().forEach(registry::remove);
                    return true;
                }
                return false;
            });
        }
    }

    private static List<Meter> register(MeterRegistry registry, String name, Tags tags, String first, String second, Pair pair,
                                        String description) {
        return List.of(FunctionCounter.builder(name, pair.first(), LongAdder::sum).tags(tags.and("outcome", first))
                        .description(description).register(registry),
                FunctionCounter.builder(name, pair.second(), LongAdder::sum).tags(tags.and("outcome", second))
                        .description(description).register(registry));
    }
}
