package io.simdex.router.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of a {@code /metrics} endpoint over HTTP, parsed from the Prometheus text format. */
record Scrape(int status, String contentType, List<Sample> samples) {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    record Sample(String name, Map<String, String> labels, double value) {
    }

    static Scrape of(int port, String path) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        List<Sample> samples = new ArrayList<>();
        for (String line : r.body().split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                samples.add(parse(line));
            }
        }
        return new Scrape(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), samples);
    }

    /** {@code name{a="x",b="y"} value}: the text format without timestamps, as Micrometer writes it. */
    private static Sample parse(String line) {
        int brace = line.indexOf('{');
        int space = line.lastIndexOf(' ');
        Map<String, String> labels = new LinkedHashMap<>();
        String name;
        if (brace >= 0 && brace < space) {
            name = line.substring(0, brace);
            Matcher m = LABEL.matcher(line.substring(brace, line.lastIndexOf('}')));
            while (m.find()) {
                labels.put(m.group(1), m.group(2));
            }
        } else {
            name = line.substring(0, space);
        }
        return new Sample(name, labels, Double.parseDouble(line.substring(space + 1)));
    }

    /** The value of the one sample {@code name} whose labels include {@code labels}; NaN if none. */
    double value(String name, Map<String, String> labels) {
        List<Sample> found = samples.stream()
                .filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet())).toList();
        if (found.size() > 1) {
            throw new AssertionError(found.size() + " samples of " + name + labels + ": " + found);
        }
        return found.isEmpty() ? Double.NaN : found.get(0).value();
    }

    /**
     * Scrapes until {@code calls} calls of {@code method} that ended with {@code status} are
     * counted, at most 30 s; the server counts a call as its stream closes, which may be just
     * after the client has its answer.
     */
    static Scrape awaitCalls(int port, String method, String status, int calls) throws IOException, InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            Scrape s = of(port, "/metrics");
            double n = s.value("grpc_server_call_duration_seconds_count", Map.of("grpc_method", method, "grpc_status", status));
            if (n >= calls || System.nanoTime() > until) {
                if (n != calls) {
                    throw new AssertionError(method + " " + status + ": " + n + " calls counted, expected " + calls);
                }
                return s;
            }
            Thread.onSpinWait();
        }
    }

    boolean has(String name) {
        return samples.stream().anyMatch(s -> s.name().equals(name));
    }
}
