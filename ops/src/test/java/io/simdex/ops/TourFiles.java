package io.simdex.ops;

import io.grpc.Channel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Where and how {@link ReadmeTourIT} runs the README's command lines. */
final class TourFiles {
    /** The address the README's grpcurl lines name: the embedded default's. */
    static final String README_ADDRESS = "localhost:7411";
    /** Short-lived CLI processes: C1 only and the serial collector start faster; behaviour is the same. */
    private static final String CLI_JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

    private TourFiles() {
    }

    /** The checkout: the first directory up from here that holds README.md and .ci/run. */
    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isRegularFile(p.resolve(".ci/run"))) {
                return p;
            }
        }
        throw new AssertionError("no README.md and .ci/run above " + Path.of("").toAbsolutePath());
    }

    /**
     * A directory in which {@code ops/bin/simdex} is this checkout's launcher running this build's
     * jar, holding the files the tour reads: {@code docs.jsonl} (one fingerprint line, one text
     * line) and {@code urls.txt} (one URL the tour saw before, one it did not).
     */
    static Path workDir(Path parent, Path root) throws IOException {
        Path work = Files.createDirectories(parent.resolve("tour"));
        Path ops = Files.createDirectories(work.resolve("ops"));
        Files.createSymbolicLink(ops.resolve("bin"), root.resolve("ops/bin"));
        Files.createSymbolicLink(ops.resolve("target"), SimdexProcess.JAR.toAbsolutePath().getParent());
        Files.writeString(work.resolve("docs.jsonl"), """
                {"id": "d1", "fingerprint": "fedcba9876543210"}
                {"id": "d2", "text": "Heavy rain closed the coast road between the two ferry ports"}
                """);
        Files.writeString(work.resolve("urls.txt"), "https://a.cn/2\nhttps://a.cn/3\n");
        return work;
    }

    /**
     * Runs one README line: launcher lines in a shell in {@code work}, grpcurl lines as the same
     * call on {@code channel}; any other line is not run here (exit code -1).
     */
    static ReadmeTourIT.Answer run(String line, Path work, String target, Channel channel) throws Exception {
        if (line.startsWith("grpcurl ")) {
            GrpcurlCall call = GrpcurlCall.parse(line);
            if (!call.address().equals(README_ADDRESS)) {
                throw new AssertionError("grpcurl address " + call.address() + ", the embedded default is " + README_ADDRESS);
            }
            return new ReadmeTourIT.Answer(0, call.call(channel), "", work);
        }
        if (!line.contains(ReadmeTour.LAUNCHER)) {
            return new ReadmeTourIT.Answer(-1, "", "not run by this test", work);
        }
        return shell(ReadmeTour.withTarget(line, target), work);
    }

    private static ReadmeTourIT.Answer shell(String line, Path work) throws Exception {
        Path out = Files.createTempFile(work.getParent(), "out", ".txt");
        Path err = Files.createTempFile(work.getParent(), "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", line).directory(work.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        Map<String, String> env = pb.environment();
        // The launcher runs `java` from PATH: make it this JVM's.
        String javaBin = Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent().toString();
        env.put("PATH", javaBin + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("SIMDEX_JAVA_OPTS", CLI_JAVA_OPTS);
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("did not finish within 60 s: " + line);
        }
        return new ReadmeTourIT.Answer(p.exitValue(), Files.readString(out), Files.readString(err), work);
    }
}
