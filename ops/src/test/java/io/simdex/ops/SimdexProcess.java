package io.simdex.ops;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code java -jar simdex.jar ARGS} as a real child process, with its output in a log file. */
final class SimdexProcess implements AutoCloseable {
    static final Path JAR = Path.of(System.getProperty("simdex.jar", "target/simdex.jar"));
    /** Generous: a JVM start and an Atomix join on a busy 2-core machine. */
    static final Duration SERVING_TIMEOUT = Duration.ofMinutes(3);

    private static final java.util.Random PORTS = new java.util.Random();
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Process process;
    private final Path log;

    private SimdexProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static SimdexProcess start(Path log, String... args) throws IOException {
        return start(log, List.of(), java.util.Map.of(), args);
    }

    /** As {@link #start(Path, String...)} with {@code env} added to the inherited environment. */
    static SimdexProcess start(Path log, java.util.Map<String, String> env, String... args) throws IOException {
        return start(log, List.of(), env, args);
    }

    /** As {@link #start(Path, String...)} with extra JVM flags before {@code -jar}. */
    static SimdexProcess start(Path log, List<String> jvmFlags, String... args) throws IOException {
        return start(log, jvmFlags, java.util.Map.of(), args);
    }

    private static SimdexProcess start(Path log, List<String> jvmFlags, java.util.Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-Xmx512m", "-Dchronicle.analytics.disable=true"));
        cmd.addAll(jvmFlags);
        cmd.addAll(List.of("-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        return new SimdexProcess(builder.start(), log);
    }

    /** Runs a CLI command to completion; returns its exit code and output. */
    static Result run(Path dir, String... args) throws Exception {
        return run(dir, java.util.Map.of(), args);
    }

    /** As {@link #run(Path, String...)} with {@code env} added to the inherited environment. */
    static Result run(Path dir, java.util.Map<String, String> env, String... args) throws Exception {
        Path log = Files.createTempFile(dir, "cli", ".log");
        SimdexProcess p = start(log, env, args);
        if (!p.process.waitFor(60, TimeUnit.SECONDS)) {
            p.process.destroyForcibly();
            throw new AssertionError("CLI timed out: " + String.join(" ", args));
        }
        return new Result(p.process.exitValue(), Files.readString(log));
    }

    record Result(int exitCode, String output) {
    }

    /** Waits (up to 3 minutes) until the gRPC health service on {@code port} says SERVING; fails at once if the process exits. */
    void awaitServing(int port, String service) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try {
            Await.until(service + " SERVING on port " + port, SERVING_TIMEOUT, () -> health(channel, service, "process"),
                    status -> status == HealthCheckResponse.ServingStatus.SERVING, () -> "\n" + output());
        } finally {
            channel.shutdownNow();
        }
    }

    /** The health of {@code service} over {@code channel}; fails at once (with the log) if the process has exited. */
    HealthCheckResponse.ServingStatus health(ManagedChannel channel, String service, String name) {
        if (!process.isAlive()) {
            throw new AssertionError(name + " exited with " + process.exitValue() + ":\n" + output());
        }
        return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(2, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
    }

    /** SIGSTOP / SIGCONT: the process hangs (a stall, a long pause) but keeps its sockets. */
    void signal(String name) throws Exception {
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
    }

    /** SIGKILL: no shutdown hook runs, maps are not closed. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: shutdown hooks close the maps cleanly. Returns the exit code. */
    int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("did not stop within 60 s");
        }
        return process.exitValue();
    }

    String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill9();
        }
    }

    /**
     * A port a child process can bind a little later. Picked below the kernel's ephemeral range:
     * a port the kernel handed out for {@code ServerSocket(0)} comes from the range every
     * outgoing connection takes its local port from, so in a test that opens many connections it
     * can be taken before the child binds it. Never the same port twice in one test JVM.
     */
    static int freePort() throws IOException {
        int below = ephemeralLow();
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = 10_000 + PORTS.nextInt(below - 10_000);
            if (!HANDED_OUT.add(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new InetSocketAddress("127.0.0.1", port));
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free port in 10000.." + below);
    }

    /** The first ephemeral port (Linux: /proc/sys/net/ipv4/ip_local_port_range); 32768 where unknown. */
    private static int ephemeralLow() {
        try {
            int low = Integer.parseInt(Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+")[0]);
            return low > 11_000 ? low : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command().orElse("java");
    }
}
