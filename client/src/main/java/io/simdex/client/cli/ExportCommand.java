package io.simdex.client.cli;

import com.google.gson.JsonObject;
import io.simdex.client.Doc;
import io.simdex.client.Fingerprints;
import io.simdex.client.SimdexClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;

/**
 * {@code export}: a collection's documents as JSONL, {@code {"id":"d1","fingerprint":"0x..."}}
 * a line, the form {@code load} reads. To a file it writes {@code FILE.part} and renames it
 * once the last page came, so a FILE is always a whole export.
 */
@Command(name = "export", description = {"Write a collection's documents (id and fingerprint) as JSONL, the form `load` reads.",
        "A document not changed while the export runs is written exactly once; texts are not exported."})
final class ExportCommand extends ClientCommand {
    @Mixin
    CollectionOption collection;

    @Option(names = "--out", paramLabel = "FILE", description = "Write to FILE (whole or not at all) instead of standard output.")
    Path file;

    @Option(names = "--page-size", paramLabel = "N", defaultValue = "1000", description = "Documents a call fetches, 1..10000 (default: ${DEFAULT-VALUE}).")
    int pageSize;

    @Override
    int execute(SimdexClient client) throws Exception {
        if (pageSize < 1 || pageSize > SimdexClient.MAX_PAGE) {
            throw new BadInputException("--page-size must be 1.." + SimdexClient.MAX_PAGE + ", was " + pageSize);
        }
        Iterator<Doc> docs = client.export(collection.name, pageSize);
        long written;
        if (file == null) {
            written = write(docs, out());
            out().flush();
        } else {
            Path part = file.resolveSibling(file.getFileName() + ".part");
            try (Writer w = Files.newBufferedWriter(part, StandardCharsets.UTF_8)) {
                written = write(docs, w);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(part);
                throw e;
            }
            Files.move(part, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        PrintWriter report = file == null ? err() : out();
        if (json() && file != null) {
            JsonObject o = new JsonObject();
            o.addProperty("exported", written);
            o.addProperty("file", file.toString());
            printJson(o);
        } else {
            report.printf("exported %d document(s) from %s%s%n", written, collection.name, file == null ? "" : " to " + file);
        }
        return 0;
    }

    private static long write(Iterator<Doc> docs, Writer out) throws IOException {
        long n = 0;
        while (docs.hasNext()) {
            Doc d = docs.next();
            JsonObject o = new JsonObject();
            o.addProperty("id", d.id());
            o.addProperty("fingerprint", Fingerprints.format(d.fingerprint()));
            out.write(Json.GSON.toJson(o));
            out.write('\n');
            n++;
        }
        return n;
    }
}
