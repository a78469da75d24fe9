package io.simdex.loadtest.report;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * One figure's directory under {@code results/}: {@code figure.properties} ({@code title},
 * {@code what}), {@code measured.properties} ({@code date}, {@code code}, {@code machine},
 * {@code command.1}, {@code command.2}, ...) and its result files.
 */
final class FigureDir {
    private final String name;
    private final Path dir;
    private final Properties figure;
    private final Properties measured;

    private FigureDir(String name, Path dir, Properties figure, Properties measured) {
        this.name = name;
        this.dir = dir;
        this.figure = figure;
        this.measured = measured;
    }

    static FigureDir open(Path results, String name) {
        Path dir = results.resolve(name);
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("no figure directory " + dir);
        }
        return new FigureDir(name, dir, properties(dir.resolve("figure.properties")), properties(dir.resolve("measured.properties")));
    }

    String name() {
        return name;
    }

    Path dir() {
        return dir;
    }

    /** A key of figure.properties or measured.properties; fails naming the file if absent. */
    String get(String key) {
        String value = figure.getProperty(key, measured.getProperty(key));
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(dir + ": no '" + key + "' in figure.properties or measured.properties");
        }
        return value.strip();
    }

    /** command.1, command.2, ... of measured.properties, in order. */
    List<String> commands() {
        List<String> commands = new ArrayList<>();
        for (int i = 1; measured.getProperty("command." + i) != null; i++) {
            commands.add(measured.getProperty("command." + i).strip());
        }
        if (commands.isEmpty()) {
            throw new IllegalArgumentException(dir + ": no command.1 in measured.properties");
        }
        return commands;
    }

    /** The files whose names match {@code glob} (e.g. {@code "round-*-open.json"}), sorted by name. */
    List<Path> files(String glob) {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.list(dir)) {
            var matcher = dir.getFileSystem().getPathMatcher("glob:" + glob);
            all.filter(p -> matcher.matches(p.getFileName())).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException(dir + ": no files " + glob);
        }
        return files;
    }

    /** The median over the JSON files matching {@code glob} of the number {@code value} takes from each. */
    double median(String glob, ToDoubleFunction<ResultJson> value) {
        List<Double> values = new ArrayList<>();
        for (Path file : files(glob)) {
            values.add(value.applyAsDouble(ResultJson.read(file)));
        }
        return Md.median(values);
    }

    private static Properties properties(Path file) {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return p;
    }
}
