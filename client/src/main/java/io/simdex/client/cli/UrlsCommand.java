package io.simdex.client.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.simdex.client.SimdexClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@code urls check} and {@code urls drop}: a crawl job's URL seen-set. */
@Command(name = "urls", description = "A crawl job's URL seen-set: which URLs are new.",
        subcommands = {UrlsCommand.CheckCommand.class, UrlsCommand.DropCommand.class})
final class UrlsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand: check or drop");
    }

    @Command(name = "check", description = "Print the URLs the job has not seen (one per line) and record them.")
    static final class CheckCommand extends ClientCommand {
        @Option(names = "--job", required = true, description = "The crawl job, e.g. job_108.")
        String job;

        @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "7d",
                description = "How long a URL stays seen: 2d, 36h, 90m, 45s or PT6H (default: ${DEFAULT-VALUE}).")
        String ttl;

        @Option(names = "--check-only", description = "Answer without recording.")
        boolean checkOnly;

        @Option(names = "--canonical", description = "Compare the URLs' canonical forms: scheme and host in lower case, without"
                + " the default port, the fragment or an empty query, dot segments resolved, escapes normalised (URLs are printed"
                + " as given). Every URL must then be absolute (scheme://host...). Check a job with or without it throughout.")
        boolean canonical;

        @Option(names = "--file", paramLabel = "FILE", description = "Read URLs from FILE, one per line ('-' for standard input).")
        String file;

        @Parameters(paramLabel = "URL", arity = "0..*", description = "URLs to check.")
        List<String> urls = new ArrayList<>();

        @Override
        int execute(SimdexClient client) throws Exception {
            List<String> all = new ArrayList<>(urls);
            if (file != null) {
                all.addAll(Lines.read(file));
            }
            if (all.isEmpty()) {
                throw new BadInputException("no URLs: give them as arguments or with --file");
            }
            List<Boolean> fresh = client.checkUrls(job, all, Duration.ofSeconds(SettingsOptions.seconds("--ttl", ttl)), checkOnly, canonical);
            if (json()) {
                JsonArray array = new JsonArray();
                for (int i = 0; i < all.size(); i++) {
                    JsonObject o = new JsonObject();
                    o.addProperty("url", all.get(i));
                    o.addProperty("new", fresh.get(i));
                    array.add(o);
                }
                JsonObject o = new JsonObject();
                o.add("urls", array);
                printJson(o);
            } else {
                for (int i = 0; i < all.size(); i++) {
                    if (fresh.get(i)) {
                        out().println(all.get(i));
                    }
                }
            }
            return 0;
        }
    }

    @Command(name = "drop", description = "Forget a job's seen-set.")
    static final class DropCommand extends ClientCommand {
        @Option(names = "--job", required = true, description = "The crawl job.")
        String job;

        @Override
        int execute(SimdexClient client) {
            boolean existed = client.dropUrlJob(job);
            out().println((existed ? "dropped " : "no URLs for ") + job);
            return 0;
        }
    }
}
