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
 * A series appears with its first count, and a deleted collection's stay until the process
 * restarts. In a cluster each router counts the calls it answered: sum over routers.
 */
public final class RequestOutcomes {
    private static final Map<String, String> DESCRIPTIONS = Map.of(
            "simdex.dedup.documents", "Documents Dedup decided, by collection and outcome: inserted, duplicate",
            "simdex.query.probes", "Query probes answered, by collection and outcome: matched (a stored document within reach), unmatched",
            "simdex.urls.checked", "URLs CheckUrls answered, by outcome: new (not seen, or expired), seen");

    private record Key(String meter, String collection, String outcome) {
        Tags tags() {
            return collection == null ? Tags.of("outcome", outcome) : Tags.of("collection", collection, "outcome", outcome);
        }
    }

    private final ConcurrentHashMap<Key, LongAdder> counts = new ConcurrentHashMap<>();

    /** A Dedup call's documents: {@code inserted} stored, {@code duplicates} not. */
    public void dedup(String collection, long inserted, long duplicates) {
        add(new Key("simdex.dedup.documents", collection, "inserted"), inserted);
        add(new Key("simdex.dedup.documents", collection, "duplicate"), duplicates);
    }

    /** A Query call's probes: {@code matched} found a stored document within reach, {@code unmatched} none. */
    public void query(String collection, long matched, long unmatched) {
        add(new Key("simdex.query.probes", collection, "matched"), matched);
        add(new Key("simdex.query.probes", collection, "unmatched"), unmatched);
    }

    /** A CheckUrls call's URLs: {@code fresh} new to the job, {@code seen} not. */
    public void urls(long fresh, long seen) {
        add(new Key("simdex.urls.checked", null, "new"), fresh);
        add(new Key("simdex.urls.checked", null, "seen"), seen);
    }

    private void add(Key key, long n) {
        counts.computeIfAbsent(key, k -> new LongAdder()).add(n);
    }

    /** Exports the counts on {@code endpoint}: each series from the first scrape after its first count. */
    public void bindTo(MetricsEndpoint endpoint) {
        Set<Key> exported = ConcurrentHashMap.newKeySet();
        endpoint.beforeScrape(() -> counts.forEach((key, adder) -> {
            if (exported.add(key)) {
                FunctionCounter.builder(key.meter(), adder, LongAdder::sum).tags(key.tags())
                        .description(DESCRIPTIONS.get(key.meter())).register(endpoint.registry());
            }
        }));
    }
}
