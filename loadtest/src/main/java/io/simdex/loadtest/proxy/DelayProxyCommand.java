package io.simdex.loadtest.proxy;

import io.simdex.loadtest.DurationConverter;
import io.simdex.loadtest.run.Target;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code delay-proxy}: network latency between loopback processes, where {@code tc netem} is not available. */
@Command(name = "delay-proxy", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Forward TCP connections from --listen to --target, each direction delayed by --delay, until killed.",
                "Repeat --listen and --target in pairs for several proxies in one process. Loopback addresses only."})
public final class DelayProxyCommand implements Callable<Integer> {
    @Option(names = "--listen", required = true, description = "HOST:PORT to accept on (port 0: a free one).")
    List<String> listen;

    @Option(names = "--target", required = true, description = "HOST:PORT each accepted connection is forwarded to.")
    List<String> target;

    @Option(names = "--delay", defaultValue = "1ms", converter = DurationConverter.class,
            description = "One-way delay added in each direction, e.g. 1ms, 0.5ms, 0ms (default: ${DEFAULT-VALUE}).")
    Duration delay;

    @Option(names = "--source", description = "Local address of the connections to the targets (e.g. 127.0.0.2), so that "
            + "a NAT rule redirecting a target's port to this proxy can leave the proxy's own connections alone.")
    String source;

    @Override
    public Integer call() throws Exception {
        if (listen.size() != target.size()) {
            throw new IllegalArgumentException("--listen and --target come in pairs: " + listen.size() + " --listen, "
                    + target.size() + " --target");
        }
        InetAddress from = source == null ? null : loopback(source);
        List<DelayProxy> proxies = new ArrayList<>();
        for (int i = 0; i < listen.size(); i++) {
            DelayProxy p = DelayProxy.start(address(listen.get(i)), address(target.get(i)), from, delay);
            proxies.add(p);
            System.err.printf("delay-proxy: %s (port %d) -> %s, %s each way%n", listen.get(i), p.port(), target.get(i),
                    DurationConverter.format(delay));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (DelayProxy p : proxies) {
                try {
                    p.close();
                } catch (Exception e) {
                    System.err.println("delay-proxy: close failed: " + e);
                }
            }
            stopped.countDown();
        }, "delay-proxy-shutdown"));
        stopped.await();
        return 0;
    }

    /** "127.0.0.1:7511" as a socket address; the host must be a loopback address. */
    static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("address must be HOST:PORT, was \"" + hostPort + "\"");
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port of \"" + hostPort + "\" is not a number");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port of \"" + hostPort + "\" is out of range 0..65535");
        }
        return new InetSocketAddress(loopback(hostPort.substring(0, colon)), port);
    }

    private static InetAddress loopback(String host) {
        Target.requireLoopback(host);
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host " + host, e);
        }
    }
}
