package io.simdex.router;

import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.simdex.core.io.DurableFiles;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.router.api.Catalog;
import io.simdex.router.api.RetentionSweeper;
import io.simdex.router.api.SimdexService;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.metrics.MetricsEndpoint;
import io.simdex.router.metrics.StoreMetrics;
import io.simdex.router.shard.LocalShardClient;
import io.simdex.router.security.ServerSecurity;
import io.simdex.router.shard.Placement;
import io.simdex.router.shard.ShardClient;
import io.simdex.router.transport.DurableReplies;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.router.transport.InlineCalls;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.Durability;
import io.simdex.server.ShardNode;
import io.simdex.server.store.StoreSizing;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * The embedded default: a router and N shards in one JVM, one public gRPC port. The router
 * calls its shards directly ({@link LocalShardClient}); nothing else differs from a cluster.
 *
 * <pre>
 *   dataDir/cluster.properties          shard count, fixed at first start (placement depends on it)
 *   dataDir/router/collections.properties
 *   dataDir/shard-I/COLLECTION/...      one shard's maps (see CollectionStore)
 * </pre>
 */
public final class EmbeddedSimdex implements AutoCloseable {
    private final IndexRouter index;
    private final SimdexService service;
    private final PublicServer server;
    private final RetentionSweeper sweeper;
    private final List<ShardNode> nodes;
    /** Sends the answers held until writes are durable (FSYNC); null with PROCESS. */
    private final ExecutorService replies;
    private volatile MetricsEndpoint metrics;

    private EmbeddedSimdex(IndexRouter index, SimdexService service, PublicServer server, RetentionSweeper sweeper,
                           List<ShardNode> nodes, ExecutorService replies) {
        this.index = index;
        this.service = service;
        this.server = server;
        this.sweeper = sweeper;
        this.nodes = List.copyOf(nodes);
        this.replies = replies;
    }

    public SimdexService service() {
        return service;
    }

    /**
     * @param expectedDocuments sizing of each new collection's maps: the documents it is expected to hold
     */
    public static EmbeddedSimdex start(Path dataDir, int shards, String host, int port, long expectedDocuments) {
        return start(dataDir, shards, host, port, expectedDocuments, HandlerThreads.perCore(), true, Clock.systemUTC());
    }

    /** As {@link #start(Path, int, String, int, long)}, with the clock that drives retention. */
    public static EmbeddedSimdex start(Path dataDir, int shards, String host, int port, long expectedDocuments, Clock clock) {
        return start(dataDir, shards, host, port, expectedDocuments, HandlerThreads.perCore(), true, clock);
    }

    /**
     * As {@link #start(Path, int, String, int, long, Clock)}, running gRPC handlers on
     * {@code threads} threads ({@link HandlerThreads}; 0: gRPC's unbounded pool), and with
     * {@code inlineReads} small fingerprint queries on the transport thread that read them
     * ({@link InlineCalls#SIMDEX_READS}; never with 0 threads).
     */
    public static EmbeddedSimdex start(Path dataDir, int shards, String host, int port, long expectedDocuments, int threads,
                                       boolean inlineReads, Clock clock) {
        return start(dataDir, shards, host, port, expectedDocuments, threads, inlineReads, clock, Durability.PROCESS);
    }

    /**
     * As {@link #start(Path, int, String, int, long, int, boolean, Clock)}, acknowledging writes
     * as {@code durability} says: with FSYNC every shard keeps a write-ahead log and each call
     * that writes answers once its log records are forced ({@link DurableReplies}).
     */
    public static EmbeddedSimdex start(Path dataDir, int shards, String host, int port, long expectedDocuments, int threads,
                                       boolean inlineReads, Clock clock, Durability durability) {
        return start(dataDir, shards, host, port, expectedDocuments, threads, inlineReads, clock, durability, ServerSecurity.NONE);
    }

    /** As above, the public port protected by {@code security} (TLS, tokens, loopback only without TLS). */
    public static EmbeddedSimdex start(Path dataDir, int shards, String host, int port, long expectedDocuments, int threads,
                                       boolean inlineReads, Clock clock, Durability durability, ServerSecurity security) {
        security.checkListen(host); // before any file is opened
        shards = fixedShardCount(dataDir, shards);
        Placement placement = Placement.roundRobin(shards);
        List<ShardClient> clients = new ArrayList<>();
        List<ShardNode> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < shards; i++) {
                int owned = placement.bucketsOwnedBy(i);
                StoreSizing base = StoreSizing.forShare(expectedDocuments, shards, 24);
                StoreSizing sizing = new StoreSizing(base.expectedFingerprints(), base.expectedDocuments(), owned, base.averageIdBytes());
                nodes.add(new ShardNode(dataDir.resolve("shard-" + i), c -> sizing, durability));
                clients.add(new LocalShardClient(nodes.get(i)));
            }
        } catch (RuntimeException e) {
            nodes.forEach(ShardNode::close); // the shards opened let their directories go
            throw e;
        }
        IndexRouter index = new IndexRouter(clients, placement);
        Catalog catalog = new Catalog(dataDir.resolve("router"));
        SimdexService service = new SimdexService(index, catalog, clock);
        ExecutorService replies = durability == Durability.FSYNC ? HandlerThreads.pool(1, "durable-replies") : null;
        ServerServiceDefinition api = replies != null
                ? ServerInterceptors.intercept(service, new DurableReplies(() -> durable(nodes), replies, DurableReplies.SIMDEX_READS))
                : service.bindService();
        PublicServer server = PublicServer.start(host, port, api, SimdexGrpc.SERVICE_NAME, List.of(), threads,
                inlineReads ? InlineCalls.SIMDEX_READS : Map.of(), service.handlingTimes(), security);
        return new EmbeddedSimdex(index, service, server, RetentionSweeper.start(service, Set.of(Catalog.DEFAULT)), nodes, replies);
    }

    /** Completed once every shard's changes made so far are durable. */
    private static CompletableFuture<Void> durable(List<ShardNode> nodes) {
        CompletableFuture<?>[] each = new CompletableFuture<?>[nodes.size()];
        for (int i = 0; i < each.length; i++) {
            each[i] = nodes.get(i).durable();
        }
        return CompletableFuture.allOf(each);
    }

    public int port() {
        return server.port();
    }

    /**
     * Serves Prometheus metrics on {@code host:port} (0: a free port) until {@link #close}: the
     * public API's calls, every shard's store gauges summed per collection, the JVM.
     */
    public MetricsEndpoint serveMetrics(String host, int port) {
        MetricsEndpoint m = MetricsEndpoint.start(host, port);
        service.handlingTimes().publishTo(m.grpcCalls());
        service.outcomes().bindTo(m);
        StoreMetrics.bind(m, nodes);
        metrics = m;
        return m;
    }

    public IndexRouter index() {
        return index;
    }

    /** The shards, for tests of what they hold. */
    List<ShardNode> nodes() {
        return nodes;
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    /** Stops serving, then closes every shard's maps cleanly (so the next start need not recover). */
    @Override
    public void close() {
        MetricsEndpoint m = metrics;
        if (m != null) {
            m.close();
        }
        sweeper.close();
        server.close();
        index.close();
        if (replies != null) {
            // Last: closing the shards' logs fails the answers still held, which this sends.
            replies.shutdown();
        }
    }

    /** The shard count recorded at first start; a different count later would misplace every key. */
    private static int fixedShardCount(Path dataDir, int requested) {
        Path file = dataDir.resolve("cluster.properties");
        try {
            Files.createDirectories(dataDir);
            Properties p = new Properties();
            if (Files.exists(file)) {
                try (var r = Files.newBufferedReader(file)) {
                    p.load(r);
                }
                int recorded = Integer.parseInt(p.getProperty("shards"));
                if (recorded != requested) {
                    throw new IllegalStateException(dataDir + " holds " + recorded + " shards; start with --shards " + recorded);
                }
                return recorded;
            }
            p.setProperty("shards", Integer.toString(requested));
            StringWriter w = new StringWriter();
            p.store(w, "simdex embedded cluster: fixed at first start");
            DurableFiles.replace(file, w.toString());
            return requested;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
