package io.simdex.router.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.simdex.server.CollectionSizes;
import io.simdex.server.ShardNode;
import io.simdex.server.store.DiskSpace;
import io.simdex.server.wal.WriteAheadLog;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * The store gauges, per collection ({@code collection} tag), summed over the shards this process
 * keeps (all of the embedded default's; one for a node):
 * <pre>
 *   simdex_documents          documents (ids) stored
 *   simdex_fingerprints       distinct fingerprints stored
 *   simdex_generations        time generations on disk (1 without retention; the next one may be ready early)
 *   simdex_pages              bucket pages, base and overflow, of tables kept in pages (0 for packed tables)
 *   simdex_tables_unpacked    residues packed tables gained since they were last packed (their delta)
 *   simdex_store_bytes{part}  memory-mapped bytes: tables, docs, content, texts
 *   simdex_disk_full          1 while writes that add data are refused: the data disk had no room for a file
 *   simdex_write_log_failed   shards whose write-ahead log failed (a force failed): their writes fail until a restart
 *   simdex_write_log_force_seconds_{count,sum}   the logs' forces (fdatasync) and the time they took
 *   simdex_write_log_appended_bytes_total        bytes appended to the logs
 *   simdex_write_log_checkpoints_total           checkpoints (stores forced, older segments deleted)
 * </pre>
 * The write-ahead log's figures are those of {@code --durability fsync}, and 0 without it;
 * counted since the process started.
 * Read in one pass per scrape; a collection that is gone drops out of the next scrape. In a
 * cluster each replica counts its copy: divide a sum over nodes by the replication.
 */
public final class StoreMetrics {
    private static final String[] PARTS = {"tables", "docs", "content", "texts"};
    private static final List<ToLongFunction<CollectionSizes>> PART_BYTES = List.of(
            CollectionSizes::tableBytes, CollectionSizes::docBytes, CollectionSizes::contentBytes, CollectionSizes::textBytes);

    private final List<ShardNode> nodes;
    private final MultiGauge documents;
    private final MultiGauge fingerprints;
    private final MultiGauge generations;
    private final MultiGauge pages;
    private final MultiGauge unpacked;
    private final MultiGauge bytes;

    private StoreMetrics(List<ShardNode> nodes, MeterRegistry registry) {
        this.nodes = List.copyOf(nodes);
        documents = MultiGauge.builder("simdex.documents").description("Documents stored, by collection").register(registry);
        fingerprints = MultiGauge.builder("simdex.fingerprints").description("Distinct fingerprints stored, by collection")
                .register(registry);
        generations = MultiGauge.builder("simdex.generations").description("Time generations on disk, by collection")
                .register(registry);
        pages = MultiGauge.builder("simdex.pages").description("Bucket pages (base and overflow) of tables kept in pages, by collection")
                .register(registry);
        unpacked = MultiGauge.builder("simdex.tables.unpacked")
                .description("Residues packed tables gained since they were last packed (their delta, which a compaction packs), by collection")
                .register(registry);
        bytes = MultiGauge.builder("simdex.store").baseUnit("bytes")
                .description("Memory-mapped bytes of the store's files, by collection and part").register(registry);
        Gauge.builder("simdex.disk.full", () -> DiskSpace.isShort() ? 1 : 0)
                .description("1 while writes that add data are refused: the data disk had no room for a file a store must make")
                .register(registry);
        Gauge.builder("simdex.write.log.failed", () -> this.nodes.stream().filter(ShardNode::logFailed).count())
                .description("Shards whose write-ahead log failed (a force failed): their writes fail until the process restarts")
                .register(registry);
        FunctionTimer.builder("simdex.write.log.force", this, m -> m.logStats().forces(), m -> m.logStats().forceNanos(), TimeUnit.NANOSECONDS)
                .description("Forces (fdatasync) of the shards' write-ahead logs, which every acknowledged write waits for, and their time")
                .register(registry);
        FunctionCounter.builder("simdex.write.log.appended", this, m -> m.logStats().appendedBytes()).baseUnit("bytes")
                .description("Bytes appended to the shards' write-ahead logs").register(registry);
        FunctionCounter.builder("simdex.write.log.checkpoints", this, m -> m.logStats().checkpoints())
                .description("Checkpoints of the shards' write-ahead logs: stores forced, older segments deleted").register(registry);
    }

    /** The write-ahead logs' figures summed over the shards. */
    private WriteAheadLog.Stats logStats() {
        WriteAheadLog.Stats sum = WriteAheadLog.Stats.NONE;
        for (ShardNode node : nodes) {
            sum = sum.plus(node.logStats());
        }
        return sum;
    }

    /** Publishes the sizes of {@code nodes}' collections on {@code endpoint}, read at each scrape. */
    public static void bind(MetricsEndpoint endpoint, List<ShardNode> nodes) {
        StoreMetrics m = new StoreMetrics(nodes, endpoint.registry());
        endpoint.beforeScrape(m::refresh);
    }

    void refresh() {
        Map<String, CollectionSizes> sum = new TreeMap<>();
        for (ShardNode node : nodes) {
            node.sizes().forEach((collection, s) -> sum.merge(collection, s, CollectionSizes::alongside));
        }
        documents.register(rows(sum, CollectionSizes::documents), true);
        fingerprints.register(rows(sum, CollectionSizes::fingerprints), true);
        generations.register(rows(sum, CollectionSizes::generations), true);
        pages.register(rows(sum, CollectionSizes::pages), true);
        unpacked.register(rows(sum, CollectionSizes::unpacked), true);
        List<MultiGauge.Row<?>> byPart = new ArrayList<>();
        sum.forEach((collection, s) -> {
            for (int i = 0; i < PARTS.length; i++) {
                byPart.add(MultiGauge.Row.of(Tags.of("collection", collection, "part", PARTS[i]), PART_BYTES.get(i).applyAsLong(s)));
            }
        });
        bytes.register(byPart, true);
    }

    private static List<MultiGauge.Row<?>> rows(Map<String, CollectionSizes> sum, ToLongFunction<CollectionSizes> value) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>(sum.size());
        sum.forEach((collection, s) -> rows.add(MultiGauge.Row.of(Tags.of("collection", collection), value.applyAsLong(s))));
        return rows;
    }
}
