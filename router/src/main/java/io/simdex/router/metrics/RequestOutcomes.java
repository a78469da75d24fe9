package io.simdex.router.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the public calls decided, counted since the process started: the figures a
 * deduplication pipeline is watched by (what share of its pages are near-duplicates, of its
 * links new), which call rates and stored counts do not give.
 * <pre>
 *   simdex_dedup_documents_total{collection, outcome}  Dedup's documents: inserted, duplicate
 *   simdex_query_probes_total{collection, outcome}     Query's probes: matched (a stored document within reach), unmatched
 *   simdex_urls_checked_total{outcome}                 CheckUrls' URLs: new, seen
 * </pre>
 * A collection's series appear with its first count (the URL counts from the start), and a
 * deleted collection's stay until the process restarts. In a cluster each router counts the calls it answered: sum over routers. A call
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
        register(endpoint, URLS, Tags.empty(), "new", "seen", urls,
                "URLs CheckUrls answered, by outcome: new (not seen, or expired), seen");
        Set<String> dedupExported = ConcurrentHashMap.newKeySet();
        Set<String> queryExported = ConcurrentHashMap.newKeySet();
        endpoint.beforeScrape(() -> {
            dedup.forEach((c, pair) -> {
                if (dedupExported.add(c)) {
                    register(endpoint, DEDUP, Tags.of("collection", c), "inserted", "duplicate", pair,
                            "Documents Dedup decided, by collection and outcome: inserted, duplicate");
                }
            });
            query.forEach((c, pair) -> {
                if (queryExported.add(c)) {
                    register(endpoint, QUERY, Tags.of("collection", c), "matched", "unmatched", pair,
                            "Query probes answered, by collection and outcome: matched (a stored document within reach), unmatched");
                }
            });
        });
    }

    private static void register(MetricsEndpoint endpoint, String name, Tags tags, String first, String second, Pair pair, String description) {
        FunctionCounter.builder(name, pair.first(), LongAdder::sum).tags(tags.and("outcome", first)).description(description)
                .register(endpoint.registry());
        FunctionCounter.builder(name, pair.second(), LongAdder::sum).tags(tags.and("outcome", second)).description(description)
                .register(endpoint.registry());
    }
}
