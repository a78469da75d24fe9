package io.simdex.loadtest.report;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code report}: REPORT.md (and its plot) from the template and the result files, nothing else. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Write the benchmark report from the result files it cites (run from the repository root).",
                "The same results give the same bytes: no generation time is written."})
public final class ReportCommand implements Callable<Integer> {
    @Option(names = "--results", defaultValue = "loadtest/results",
            description = "Directory of the figure directories (default: ${DEFAULT-VALUE}).")
    Path results;

    @Option(names = "--template", description = "Report template (default: report-template.md in --results).")
    Path template;

    @Option(names = "--out", defaultValue = "loadtest/REPORT.md",
            description = "Report to write; its plots go beside it (default: ${DEFAULT-VALUE}).")
    Path out;

    @Override
    public Integer call() throws IOException {
        Path templateFile = template != null ? template : results.resolve("report-template.md");
        if (!Files.isRegularFile(templateFile)) {
            throw new IllegalArgumentException("no report template " + templateFile);
        }
        Path reportDir = out.toAbsolutePath().getParent();
        ReportGenerator generator = new ReportGenerator(results, reportDir);
        String report = generator.generate(Files.readString(templateFile, StandardCharsets.UTF_8));
        Files.createDirectories(reportDir);
        Files.writeString(out, report, StandardCharsets.UTF_8);
        for (Map.Entry<String, String> plot : generator.plots().entrySet()) {
            Files.writeString(reportDir.resolve(plot.getKey()), plot.getValue(), StandardCharsets.UTF_8);
        }
        System.out.println("report: wrote " + out + " (" + report.lines().count() + " lines) and " + generator.plots().size() + " plot(s)");
        return 0;
    }
}
