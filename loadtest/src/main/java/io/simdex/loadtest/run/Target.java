package io.simdex.loadtest.run;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.client.ClientOptions;
import io.simdex.loadtest.echo.EchoService;
import io.simdex.router.EmbeddedSimdex;
import io.simdex.router.transport.HandlerThreads;
import io.simdex.router.transport.PublicServer;
import io.simdex.server.Durability;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where load goes: a server already listening on a loopback address, or one this JVM starts on
 * 127.0.0.1 (the echo floor, or the embedded simdex). Refuses any non-loopback address: this
 * harness measures a local process and must never be pointed at someone's service.
 */
public final class Target implements AutoCloseable {
    /** Largest response accepted: a 10,000-probe answer with matches fits. */
    private static final int MAX_MESSAGE_BYTES = PublicServer.MAX_MESSAGE_BYTES;

    private final String host;
    private final int port;
    private final String name;
    private final AutoCloseable server;
    private final ClientOptions credentials;
    private final List<ManagedChannel> channels = new ArrayList<>();

    private Target(String host, int port, String name, AutoCloseable server) {
        this(host, port, name, server, ClientOptions.DEFAULTS);
    }

    private Target(String host, int port, String name, AutoCloseable server, ClientOptions credentials) {
        this.host = host;
        this.port = port;
        this.name = name;
        this.server = server;
        this.credentials = credentials;
    }

    /**
     * This target reached with {@code options}' TLS and token (the CLI's {@code --tls-ca},
     * {@code --tls-cert}, {@code --tls-key}, {@code --token}); a server this JVM starts serves plaintext.
     */
    public Target with(ClientOptions options) {
        return new Target(host, port, name, server, options);
    }

    /**
     * @param spec "echo" (start the echo floor here), "embedded" (start simdex here, data in
     *             {@code dataDir}) or "host:port" of a loopback address, optionally as
     *             "label=host:port" to name it in reports
     * @throws IllegalArgumentException for a malformed spec or a non-loopback host
     */
    public static Target open(String spec, Path dataDir, int shards, long expected) {
        return open(spec, dataDir, shards, expected, Durability.PROCESS);
    }

    /** As {@link #open(String, Path, int, long)}, an embedded simdex acknowledging writes as {@code durability} says. */
    public static Target open(String spec, Path dataDir, int shards, long expected, Durability durability) {
        int equals = spec.indexOf('=');
        if (equals > 0) {
            Target t = open(spec.substring(equals + 1), dataDir, shards, expected, durability);
            return new Target(t.host, t.port, spec.substring(0, equals), t.server);
        }
        if (spec.equals("echo")) {
            PublicServer echo = EchoService.serve(0);
            return new Target("127.0.0.1", echo.port(), "echo (in-process)", echo);
        }
        if (spec.equals("embedded")) {
            EmbeddedSimdex simdex = EmbeddedSimdex.start(dataDir, shards, "127.0.0.1", 0, expected, HandlerThreads.perCore(), true,
                    Clock.systemUTC(), durability);
            String fsync = durability == Durability.FSYNC ? ", durability fsync" : "";
            return new Target("127.0.0.1", simdex.port(), "embedded simdex (in-process, " + shards + " shards" + fsync + ")", simdex);
        }
        int colon = spec.lastIndexOf(':');
        if (colon <= 0 || colon == spec.length() - 1) {
            throw new IllegalArgumentException("target must be echo, embedded or HOST:PORT, was \"" + spec + "\"");
        }
        String host = spec.substring(0, colon);
        int port = Integer.parseInt(spec.substring(colon + 1));
        requireLoopback(host);
        return new Target(host, port, spec, null);
    }

    /** Throws IllegalArgumentException naming {@code host} unless every address it resolves to is a loopback address. */
    public static void requireLoopback(String host) {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!a.isLoopbackAddress()) {
                    throw new IllegalArgumentException("refusing non-loopback target " + host + " (" + a.getHostAddress()
                            + "): the load generator only drives servers on this machine");
                }
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host " + host, e);
        }
    }

    /**
     * {@code n} HTTP/2 connections, plaintext unless {@link #with} gave TLS, carrying its token if any.
     * Callbacks run on the Netty event loop (directExecutor): the load generator's listeners only
     * record a number and issue the next call.
     */
    public ManagedChannel[] channels(int n) {
        ManagedChannel[] out = new ManagedChannel[n];
        for (int i = 0; i < n; i++) {
            out[i] = NettyChannelBuilder.forAddress(host, port, credentials.channelCredentials()).directExecutor()
                    .intercept(credentials.interceptors()).maxInboundMessageSize(MAX_MESSAGE_BYTES).build();
            channels.add(out[i]);
        }
        return out;
    }

    public String name() {
        return name;
    }

    public String address() {
        return host + ":" + port;
    }

    @Override
    public void close() throws Exception {
        for (ManagedChannel c : channels) {
            c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
    }
}
