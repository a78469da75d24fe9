package io.simdex.router.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.simdex.router.index.CutShortDedups;
import io.simdex.router.index.SketchReads;
import io.simdex.server.tls.CertificatesInUse;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A process's metrics in the Prometheus text format at {@code http://HOST:PORT/metrics}: a
 * Micrometer registry with the JVM's meters, the gRPC calls' ({@link GrpcCallMetrics}), the
 * process's sketch verification counts ({@link SketchReads}), when its TLS certificates expire
 * ({@link CertificatesInUse}) and whatever the process binds
 * (store, cluster). Meters whose values are read in one pass (a
 * store's sizes) register a hook that runs before each scrape, so one scrape reads them once.
 *
 * <p>Plain HTTP, one scrape at a time on its own thread: a scrape never takes a gRPC handler.
 */
public final class MetricsEndpoint implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(MetricsEndpoint.class.getName());
    /** The Prometheus text exposition format; every Prometheus since 2.0 reads it. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final GrpcCallMetrics grpcCalls;
    private final List<Runnable> beforeScrape = new CopyOnWriteArrayList<>();
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final HttpServer http;
    private final ExecutorService scrapes;
    private final MultiGauge certificates;

    private MetricsEndpoint(PrometheusMeterRegistry registry, HttpServer http, ExecutorService scrapes) {
        this.registry = registry;
        this.grpcCalls = new GrpcCallMetrics(registry);
        this.http = http;
        this.scrapes = scrapes;
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        FunctionCounter.builder("simdex.sketch.probes", SketchReads.class, c -> SketchReads.probes())
                .description("Text probes judged by sketches, this process").register(registry);
        FunctionCounter.builder("simdex.sketch.reads", SketchReads.class, c -> SketchReads.reads())
                .description("Kept sketches read to judge text probes' candidates, this process").register(registry);
        FunctionCounter.builder("simdex.sketch.capped.probes", SketchReads.class, c -> SketchReads.capped())
                .description("Text probes whose candidates were cut to the nearest 1,024 fingerprints, this process").register(registry);
        FunctionCounter.builder("simdex.dedup.completed.calls", CutShortDedups.class, c -> CutShortDedups.calls())
                .description("Dedup calls found cut short between their writes, completed by a later call, this process").register(registry);
        FunctionCounter.builder("simdex.dedup.completed.documents", CutShortDedups.class, c -> CutShortDedups.documents())
                .description("Documents of Dedup calls cut short, stored by a later call, this process").register(registry);
        FunctionCounter.builder("simdex.dedup.dropped.documents", CutShortDedups.class, c -> CutShortDedups.dropped())
                .description("Documents of Dedup calls cut short before they were left on every shard of their keys, dropped unwritten"
                        + " by a later call, this process").register(registry);
        certificates = MultiGauge.builder("simdex.tls.certificate.expiration.timestamp").baseUnit("seconds")
                .description("When the TLS certificate this process presents expires (Unix time), by use: public, peer, membership")
                .register(registry);
        beforeScrape.add(this::refreshCertificates);
    }

    private void refreshCertificates() {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        CertificatesInUse.expirations().forEach((use, notAfter) -> rows.add(MultiGauge.Row.of(Tags.of("use", use), notAfter.getEpochSecond())));
        certificates.register(rows, true);
    }

    /** Serves {@code /metrics} on {@code host:port} (port 0 picks a free one, see {@link #port}). */
    public static MetricsEndpoint start(String host, int port) {
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(host, port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("metrics: cannot listen on " + host + ":" + port, e);
        }
        ExecutorService scrapes = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "metrics-http");
            t.setDaemon(true);
            return t;
        });
        MetricsEndpoint endpoint = new MetricsEndpoint(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), http, scrapes);
        http.createContext("/", endpoint::handle);
        http.setExecutor(scrapes);
        http.start();
        return endpoint;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The gRPC call timer: a stream tracer for a server, or a sink for {@code HandlingTimes}. */
    public GrpcCallMetrics grpcCalls() {
        return grpcCalls;
    }

    /** Runs {@code refresh} before every scrape (a failure is logged, and the scrape goes on). */
    public void beforeScrape(Runnable refresh) {
        beforeScrape.add(refresh);
    }

    public int port() {
        return http.getAddress().getPort();
    }

    /** The text a scrape returns now. */
    public String scrape() {
        for (Runnable r : beforeScrape) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "metrics: a refresh failed; its meters keep their last values", e);
            }
        }
        return registry.scrape();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!exchange.getRequestURI().getPath().equals("/metrics")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Stops serving scrapes, then the meters' own threads. */
    @Override
    public void close() {
        http.stop(0);
        scrapes.shutdownNow();
        gc.close();
        registry.close();
    }
}
