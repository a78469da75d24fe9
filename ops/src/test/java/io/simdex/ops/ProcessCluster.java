package io.simdex.ops;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.client.ClientOptions;
import io.simdex.client.SimdexAdmin;
import io.simdex.proto.v1.Member;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A replicated cluster in real processes on loopback: nodes node-1..node-N (node-1..3 found the
 * Raft group; R=2, W=1), router-1 and any routers {@link #addRouter} adds, each a {@link SimdexProcess} with its own config file,
 * one log per start, and Prometheus metrics on a free port ({@link Metrics#port}). Waits go
 * through {@link #await}, which adds the tail of every log on a timeout.
 */
final class ProcessCluster implements AutoCloseable {
    /** Generous on purpose: a catch-up of a third of a million records on a busy 2-core machine. */
    static final Duration STATE_TIMEOUT = Duration.ofMinutes(5);

    private final Path dir;
    private final int[] shardPorts;
    private final int routerPort;
    private final String seeds;
    private final Map<String, Integer> routerPorts = new LinkedHashMap<>();
    private final Map<String, List<String>> jvmFlags = new LinkedHashMap<>();
    private final Map<String, SimdexProcess> processes = new LinkedHashMap<>();
    private final Map<String, Integer> starts = new LinkedHashMap<>();
    private ManagedChannel channel;
    private SimdexAdmin admin;

    /** Writes the config files of {@code nodes} nodes and the router; starts nothing. */
    ProcessCluster(Path dir, int nodes) throws IOException {
        this.dir = dir;
        int[] atomix = new int[nodes + 1];
        shardPorts = new int[nodes + 1];
        for (int i = 1; i <= nodes; i++) {
            atomix[i] = SimdexProcess.freePort();
            shardPorts[i] = SimdexProcess.freePort();
        }
        seeds = IntStream.rangeClosed(1, 3).mapToObj(i -> "node-" + i + "@127.0.0.1:" + atomix[i]).collect(Collectors.joining(","));
        for (int i = 1; i <= nodes; i++) {
            Files.writeString(dir.resolve("node-" + i + ".properties"), "id=node-" + i + "\nhost=127.0.0.1\nport=" + shardPorts[i]
                    + "\natomix.port=" + atomix[i] + "\ndata=" + dir.resolve("node-" + i) + "\nseeds=" + seeds
                    + "\nraft=node-1,node-2,node-3\nreplication=2\nwrite.quorum=1\nexpected=1500000\nmetrics.port=0\n");
        }
        routerPort = writeRouter("router-1", "");
    }

    /** Writes the config of router {@code id} on a free port, with {@code more} lines of settings; returns the port. */
    private int writeRouter(String id, String more) throws IOException {
        int port = SimdexProcess.freePort();
        Files.writeString(dir.resolve(id + ".properties"), "id=" + id + "\nhost=127.0.0.1\nport=" + port + "\natomix.port="
                + SimdexProcess.freePort() + "\ndata=" + dir.resolve(id) + "\nseeds=" + seeds + "\nmetrics.port=0\n" + more);
        routerPorts.put(id, port);
        return port;
    }

    /**
     * Writes the config of router-N (the next number), with {@code settings} (lines {@code key=value}) added,
     * started with {@code flags} before -jar; starts nothing.
     */
    String addRouter(List<String> flags, String settings) throws IOException {
        String id = "router-" + (routerPorts.size() + 1);
        writeRouter(id, settings);
        jvmFlags.put(id, flags);
        return id;
    }

    /** The public API port of router {@code id}. */
    int routerPort(String id) {
        return routerPorts.get(id);
    }

    /** Starts the three founding nodes together (Raft needs a quorum to start), then the router; opens the admin channel. */
    void startFounders() throws Exception {
        for (int i = 1; i <= 3; i++) {
            launch("node-" + i);
        }
        awaitFounders(List.of("node-1", "node-2", "node-3"));
        launch("router-1");
        awaitServing("router-1");
        channel = NettyChannelBuilder.forAddress("127.0.0.1", routerPort).usePlaintext().build();
        admin = SimdexAdmin.over(channel, ClientOptions.DEFAULTS);
    }

    /**
     * Waits for the founders together: one that exits fails the start at once, and a timeout
     * shows every founder's log, since a founder stuck in its Atomix join is waiting on another.
     */
    private void awaitFounders(List<String> ids) throws Exception {
        Map<String, ManagedChannel> health = new LinkedHashMap<>();
        for (String id : ids) {
            health.put(id, NettyChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(shardAddress(id).split(":")[1])).usePlaintext().build());
        }
        try {
            Await.until("founders " + ids + " SERVING simdex.v1.Shard", SimdexProcess.SERVING_TIMEOUT, () -> {
                List<String> waiting = new ArrayList<>();
                health.forEach((id, channel) -> {
                    try {
                        if (process(id).health(channel, "simdex.v1.Shard", id) != HealthCheckResponse.ServingStatus.SERVING) {
                            waiting.add(id);
                        }
                    } catch (StatusRuntimeException notListening) {
                        waiting.add(id + " (" + notListening.getStatus().getCode() + ")");
                    }
                });
                return waiting;
            }, List::isEmpty, () -> ids.stream().map(id -> "\n--- " + id + " ---\n" + process(id).output()).collect(Collectors.joining()));
        } finally {
            health.values().forEach(ManagedChannel::shutdownNow);
        }
    }

    ManagedChannel channel() {
        return channel;
    }

    SimdexAdmin admin() {
        return admin;
    }

    String shardAddress(String node) {
        return "127.0.0.1:" + shardPorts[Integer.parseInt(node.substring("node-".length()))];
    }

    /** Starts (or restarts) a process from its config; each start logs to its own file. */
    void launch(String id) throws IOException {
        int n = starts.merge(id, 1, Integer::sum);
        String kind = id.startsWith("router") ? "router" : "node";
        processes.put(id, SimdexProcess.start(dir.resolve(id + "-" + n + ".log"), jvmFlags.getOrDefault(id, List.of()), kind, "--config",
                dir.resolve(id + ".properties").toString()));
    }

    void awaitServing(String id) throws Exception {
        if (id.startsWith("router")) {
            process(id).awaitServing(routerPort(id), "simdex.v1.Simdex");
        } else {
            process(id).awaitServing(Integer.parseInt(shardAddress(id).split(":")[1]), "simdex.v1.Shard");
        }
    }

    SimdexProcess process(String id) {
        return processes.get(id);
    }

    /** The member as the router's Admin.Members reports it; one with only the id set if it is not listed. */
    Member member(String id) {
        return admin.members().getMembersList().stream().filter(m -> m.getId().equals(id)).findFirst()
                .orElse(Member.newBuilder().setId(id).build());
    }

    /** The nodes as the router's Admin.Members reports them. */
    List<Member> nodes() {
        return admin.members().getMembersList().stream().filter(m -> m.getRole().equals("node")).toList();
    }

    /** One short line per node: {@code [node-1 live readable active 2731 replicas, ...]}. */
    static String brief(List<Member> nodes) {
        return nodes.stream().map(ProcessCluster::brief).collect(Collectors.joining(", ", "[", "]"));
    }

    static String brief(Member m) {
        return m.getId() + (m.getLive() ? " live" : " down") + (m.getReadable() ? " readable" : " unreadable") + " " + m.getState()
                + " " + m.getReplicas() + " replicas";
    }

    /** Waits until the member satisfies {@code done}; a timeout shows the member as last seen and every log's tail. */
    Member awaitMember(String id, String what, Predicate<Member> done) throws InterruptedException {
        return await(id + " " + what, () -> member(id), done, ProcessCluster::brief);
    }

    /** {@link Await#poll} with the default state deadline, showing the observed value as {@code show} prints it; prints how long it took. */
    <T> Await.Outcome<Shown<T>> poll(String what, Supplier<T> observe, Predicate<T> done, Function<T, String> show)
            throws InterruptedException {
        Await.Outcome<Shown<T>> o = Await.poll(what, STATE_TIMEOUT, () -> new Shown<>(observe.get(), show), s -> done.test(s.value));
        System.out.println("[cluster wait] " + o.describe().replaceFirst("; last seen: .*", ""));
        return o;
    }

    /** {@link #poll} that fails on a timeout with the value last seen and the tail of every log. */
    <T> T await(String what, Supplier<T> observe, Predicate<T> done, Function<T, String> show) throws InterruptedException {
        Await.Outcome<Shown<T>> o = poll(what, observe, done, show);
        if (!o.met()) {
            throw new AssertionError(o.describe() + logTails());
        }
        return o.last().value;
    }

    /** A value with how it prints in a timeout message. */
    record Shown<T>(T value, Function<T, String> show) {
        @Override
        public String toString() {
            return show.apply(value);
        }
    }

    String logTails() {
        StringBuilder logs = new StringBuilder();
        processes.forEach((id, p) -> {
            String out = p.output();
            logs.append("\n--- ").append(id).append(" ---\n").append(out.length() <= 4000 ? out : out.substring(out.length() - 4000));
        });
        return logs.toString();
    }

    @Override
    public void close() throws InterruptedException {
        if (admin != null) {
            admin.close();
        }
        if (channel != null) {
            channel.shutdownNow();
        }
        for (SimdexProcess p : processes.values()) {
            p.close();
        }
    }
}
