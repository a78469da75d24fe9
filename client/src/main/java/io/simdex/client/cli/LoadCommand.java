package io.simdex.client.cli;

import com.google.gson.JsonObject;
import io.simdex.client.BulkLoader;
import io.simdex.client.ClientOptions;
import io.simdex.client.SimdexClient;
import java.io.IOException;
import java.nio.file.Path;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * Streams JSONL or TSV files through one BulkLoad stream. Lines are read, batched and sent as
 * the server takes them, so memory stays flat however large the files are.
 */
@Command(name = "load",
        description = "Bulk-load documents from JSONL (.jsonl/.json/.ndjson) or TSV (.tsv/.txt) files.")
final class LoadCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Files to load, in order.")
    List<Path> files;

    @Option(names = "--format", paramLabel = "FORMAT",
            description = "jsonl or tsv for every file (default: by file extension).")
    InputFormat format;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "1000",
            description = "Documents per streamed batch, 1..10000 (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--no-progress", description = "Do not draw the progress bar (for scripts).")
    boolean noProgress;

    @Option(names = "--skip-bad", description = "Report and skip bad lines instead of stopping at the first.")
    boolean skipBad;

    @Override
    int execute(SimdexClient client) throws IOException, BadInputException {
        List<InputFormat> formats = formats();
        if (batch < 1 || batch > ClientOptions.SERVER_BATCH_LIMIT) {
            throw new ParameterException(spec.commandLine(), "--batch must be in 1..10000, was " + batch);
        }
        long totalLines = noProgress ? -1 : LineCounter.count(files);
        long start = System.nanoTime();
        BulkLoader loader = client.bulkLoader(collection.name, batch);
        long skipped = stream(loader, formats, totalLines);
        long loaded = loader.close();
        printSummary(loaded, skipped, (System.nanoTime() - start) / 1e9);
        return 0;
    }

    /** Feeds every file to the loader; cancels the stream if anything goes wrong. */
    private long stream(BulkLoader loader, List<InputFormat> formats, long totalLines)
            throws IOException, BadInputException {
        try (ProgressBar bar = noProgress ? null : progressBar(totalLines)) {
            Runnable onLine = bar == null ? () -> { } : bar::step;
            DocFileReader reader = new DocFileReader(loader::add, onLine, skipBad, err());
            for (int i = 0; i < files.size(); i++) {
                reader.read(files.get(i), formats.get(i));
            }
            return reader.skipped();
        } catch (BadInputException e) {
            loader.cancel("bad input", e);
            throw new BadInputException(e.getMessage() + " (stopped; " + loader.sentDocuments()
                    + " documents sent before it may be stored)");
        } catch (IOException | RuntimeException | Error e) {
            loader.cancel("load failed", e);
            throw e;
        }
    }

    /** Each file's format, checked for every file before anything is sent. */
    private List<InputFormat> formats() {
        List<InputFormat> out = new ArrayList<>(files.size());
        for (Path file : files) {
            InputFormat f = format != null ? format : InputFormat.byExtension(file);
            if (f == null) {
                throw new ParameterException(spec.commandLine(),
                        "cannot tell the format of " + file + " from its extension; use --format jsonl|tsv");
            }
            out.add(f);
        }
        return out;
    }

    private static ProgressBar progressBar(long totalLines) {
        return new ProgressBarBuilder()
                .setTaskName("load")
                .setInitialMax(totalLines)
                .setUnit(" docs", 1)
                .showSpeed()
                .setSpeedUnit(ChronoUnit.SECONDS)
                .setUpdateIntervalMillis(250)
                .build();
    }

    private void printSummary(long loaded, long skipped, double seconds) {
        double rate = seconds > 0 ? loaded / seconds : 0;
        if (json()) {
            JsonObject o = new JsonObject();
            o.addProperty("loaded", loaded);
            o.addProperty("skipped", skipped);
            o.addProperty("seconds", seconds);
            o.addProperty("docsPerSecond", rate);
            printJson(o);
            return;
        }
        String skippedNote = skipped > 0 ? ", skipped " + skipped + " bad line(s)" : "";
        out().printf(Locale.ROOT, "loaded %d documents in %.2f s (%.0f docs/s)%s%n",
                loaded, seconds, rate, skippedNote);
    }
}
