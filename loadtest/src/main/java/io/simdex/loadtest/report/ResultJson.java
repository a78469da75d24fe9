package io.simdex.loadtest.report;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads the JSON reports of {@code run}, {@code load} and {@code store-bench} by dotted paths. */
final class ResultJson {
    private final Path file;
    private final JsonObject root;

    private ResultJson(Path file, JsonObject root) {
        this.file = file;
        this.root = root;
    }

    static ResultJson read(Path file) {
        try {
            return new ResultJson(file, JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8)).getAsJsonObject());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(file + " is not a JSON object: " + e.getMessage(), e);
        }
    }

    Path file() {
        return file;
    }

    /** The number at {@code path} (e.g. {@code "median.latencyMicros.p99"}); fails naming the file if absent. */
    double number(String path) {
        return number(root, path);
    }

    double number(JsonObject from, String path) {
        JsonElement e = at(from, path);
        if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
            throw new IllegalArgumentException(file + ": no number at " + path);
        }
        return e.getAsDouble();
    }

    /** The report of {@code run} for one target ({@code "simdex"}, {@code "echo"}), or null if it has none. */
    JsonObject runReport(String target) {
        for (JsonElement r : root.getAsJsonArray("reports")) {
            JsonObject report = r.getAsJsonObject();
            if (target.equals(report.getAsJsonObject("settings").get("target").getAsString())) {
                return report;
            }
        }
        return null;
    }

    /** {@link #runReport}, failing naming the file when the run had no such target. */
    JsonObject requiredRunReport(String target) {
        JsonObject report = runReport(target);
        if (report == null) {
            throw new IllegalArgumentException(file + ": no report for target " + target);
        }
        return report;
    }

    /** The element of the top-level array {@code array} whose string {@code field} is {@code value}; fails naming the file if none. */
    JsonObject element(String array, String field, String value) {
        JsonElement list = root.get(array);
        if (list != null && list.isJsonArray()) {
            for (JsonElement e : list.getAsJsonArray()) {
                JsonElement f = e.isJsonObject() ? e.getAsJsonObject().get(field) : null;
                if (f != null && f.isJsonPrimitive() && value.equals(f.getAsString())) {
                    return e.getAsJsonObject();
                }
            }
        }
        throw new IllegalArgumentException(file + ": no element of " + array + " with " + field + " " + value);
    }

    /** The number at {@code path} in each of a run report's runs, in order. */
    List<Double> perRun(JsonObject report, String path) {
        List<Double> values = new ArrayList<>();
        for (JsonElement run : report.getAsJsonArray("runs")) {
            values.add(number(run.getAsJsonObject(), path));
        }
        return values;
    }

    private static JsonElement at(JsonObject from, String path) {
        JsonElement e = from;
        for (String key : path.split("\\.")) {
            if (e == null || !e.isJsonObject()) {
                return null;
            }
            e = e.getAsJsonObject().get(key);
        }
        return e == null || e.isJsonNull() ? null : e;
    }
}
