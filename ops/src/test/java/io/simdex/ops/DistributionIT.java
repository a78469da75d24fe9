package io.simdex.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server distribution as an operator meets it: target/simdex-VERSION.tar.gz unpacked, its
 * shipped configs pass {@code config check}, and {@code bin/simdex embedded} started from the
 * unpacked tree serves a call and stops cleanly on SIGTERM.
 */
class DistributionIT {
    private static final Path TARBALL = Path.of(System.getProperty("simdex.dist", "target/simdex-dist.tar.gz"));
    private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path dir;

    @Test
    void tarball_unpacked_hasLayoutChecksConfigsAndServesThenStopsOnSigterm() throws Exception {
        Path home = unpack();
        for (String file : List.of("bin/simdex", "lib/simdex.jar", "conf/node.properties", "conf/router.properties",
                "conf/embedded.properties", "licenses/THIRD-PARTY.txt", "README", "docs/INSTALL.md", "systemd/simdex-node.service",
                "systemd/simdex-router.service", "systemd/simdex-embedded.service", "monitoring/alerts.yml", "monitoring/alerts_test.yml",
                "monitoring/simdex.json")) {
            assertTrue(Files.isRegularFile(home.resolve(file)), "missing " + file);
        }
        assertTrue(Files.isExecutable(home.resolve("bin/simdex")), "bin/simdex is not executable");
        String thirdParty = Files.readString(home.resolve("licenses/THIRD-PARTY.txt"));
        assertTrue(thirdParty.lines().anyMatch(l -> l.contains("(io.grpc:grpc-api:") && l.contains("Apache")),
                "THIRD-PARTY.txt lists no grpc-api under its Apache license:\n" + thirdParty);
        assertTrue(!thirdParty.contains("junit") && !thirdParty.contains("io.simdex:"), "test or own artifacts listed:\n" + thirdParty);

        for (String conf : List.of("conf/node.properties", "conf/router.properties", "conf/embedded.properties")) {
            Run check = run(home, "config", "check", "--for", conf.substring(5, conf.indexOf('.')), conf);
            assertEquals(0, check.code, conf + ": " + check.output);
            assertTrue(check.output.contains(conf + ": ok:"), check.output);
        }

        Path log = dir.resolve("embedded.log");
        Process embedded = launch(home, log, "embedded", "--port", "0", "--data", dir.resolve("data").toString());
        try {
            String port = Await.until("embedded to log 'listening on'", Duration.ofMinutes(3), () -> {
                if (!embedded.isAlive()) {
                    throw new AssertionError("embedded exited with " + embedded.exitValue() + ":\n" + read(log));
                }
                Matcher m = LISTENING.matcher(read(log));
                return m.find() ? m.group(1) : null;
            }, p -> p != null, () -> "\n" + read(log));

            Run stats = run(home, "stats", "--target", "127.0.0.1:" + port);
            assertEquals(0, stats.code, stats.output);
            assertTrue(stats.output.contains("documents:      0"), stats.output);

            embedded.destroy(); // SIGTERM: the shutdown hook closes the stores
            assertTrue(embedded.waitFor(60, TimeUnit.SECONDS), "embedded still running 60 s after SIGTERM:\n" + read(log));
            int code = embedded.exitValue();
            assertTrue(code == 0 || code == 143, "exit code " + code + " after SIGTERM:\n" + read(log));
            assertTrue(Files.exists(dir.resolve("data")), "no data directory");
        } finally {
            embedded.destroyForcibly();
        }
    }

    private Path unpack() throws Exception {
        assertTrue(Files.isRegularFile(TARBALL), "no tarball at " + TARBALL + "; run mvn package");
        Path into = Files.createDirectories(dir.resolve("unpacked"));
        Process tar = new ProcessBuilder("tar", "-xzf", TARBALL.toAbsolutePath().toString(), "-C", into.toString())
                .redirectErrorStream(true).start();
        assertTrue(tar.waitFor(60, TimeUnit.SECONDS), "tar timed out");
        assertEquals(0, tar.exitValue(), new String(tar.getInputStream().readAllBytes()));
        String top = TARBALL.getFileName().toString().replaceFirst("\\.tar\\.gz$", "");
        return into.resolve(top);
    }

    private record Run(int code, String output) {
    }

    private Run run(Path home, String... args) throws Exception {
        Path log = Files.createTempFile(dir, "cli", ".log");
        Process p = launch(home, log, args);
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("timed out: bin/simdex " + String.join(" ", args) + "\n" + read(log));
        }
        return new Run(p.exitValue(), read(log));
    }

    /** {@code bin/simdex ARGS} run from the unpacked home, with this JVM's Java as JAVA_HOME. */
    private static Process launch(Path home, Path log, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/simdex").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(cmd).directory(home.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = b.environment();
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("SIMDEX_HEAP", "512m");
        env.remove("SIMDEX_JAVA_OPTS");
        return b.start();
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }
}
