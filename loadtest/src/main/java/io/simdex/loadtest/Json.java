package io.simdex.loadtest;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonPrimitive;
import com.google.gson.JsonSerializer;
import com.google.gson.reflect.TypeToken;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reports as pretty JSON: to stdout, and to a file when one is named. */
public final class Json {
    private static final Gson GSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping()
            .serializeSpecialFloatingPointValues().serializeNulls()
            .registerTypeAdapter(Double.class, (JsonSerializer<Double>) (d, type, context) -> number(d))
            .registerTypeAdapter(double.class, (JsonSerializer<Double>) (d, type, context) -> number(d))
            .create();

    private Json() {
    }

    /** Whole numbers without ".0" or an exponent: 17088014, not 1.7088014E7. */
    private static JsonPrimitive number(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? new JsonPrimitive((long) d) : new JsonPrimitive(d);
    }

    /** Reads a report written by {@link #emit} back. */
    public static <T> T read(Path file, TypeToken<T> type) throws IOException {
        return GSON.fromJson(Files.readString(file, StandardCharsets.UTF_8), type.getType());
    }

    public static String write(Object report) {
        return GSON.toJson(report);
    }

    /** Prints {@code report} to stdout and, if {@code file} is not null, writes it there too. */
    public static void emit(Object report, Path file) {
        String json = write(report);
        System.out.println(json);
        if (file != null) {
            try {
                if (file.toAbsolutePath().getParent() != null) {
                    Files.createDirectories(file.toAbsolutePath().getParent());
                }
                Files.writeString(file, json + "\n", StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
        }
    }
}
