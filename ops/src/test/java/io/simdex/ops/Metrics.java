package io.simdex.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A server process's {@code /metrics}, found from the line it logs, read over HTTP. */
final class Metrics {
    private static final Pattern LOGGED = Pattern.compile("metrics at http://127\\.0\\.0\\.1:(\\d+)/metrics");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private Metrics() {
    }

    /** The metrics port {@code p} logged (before it logs that it listens). */
    static int port(SimdexProcess p) {
        Matcher m = LOGGED.matcher(p.output());
        if (!m.find()) {
            throw new AssertionError("no metrics port in the log:\n" + p.output());
        }
        return Integer.parseInt(m.group(1));
    }

    static String scrape(int port) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new AssertionError("HTTP " + r.statusCode() + " from /metrics");
            }
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The value of the sample written exactly as {@code series} (name and labels in the order
     * the registry writes them: sorted by key), or NaN if the scrape has none.
     */
    static double value(String scrape, String series) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return Double.NaN;
    }
}
