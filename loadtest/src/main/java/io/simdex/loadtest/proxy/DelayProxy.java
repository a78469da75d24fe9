package io.simdex.loadtest.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Listens on one address and forwards every connection to a target, each direction delayed by
 * the same one-way delay (see the package comment). Sockets have Nagle's algorithm off, so a
 * small write is not held back waiting for an acknowledgement: the delay is the only one added.
 */
public final class DelayProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final InetAddress source;
    private final long delayNanos;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connections = new AtomicInteger();

    private DelayProxy(ServerSocket server, InetSocketAddress target, InetAddress source, Duration delay) {
        this.server = server;
        this.target = target;
        this.source = source;
        this.delayNanos = delay.toNanos();
    }

    /**
     * @param listen where to accept (port 0: a free one, see {@link #port()})
     * @param source the local address of the connections to the target, or null for the system's
     *               choice; a distinct one (127.0.0.2) lets a NAT rule that redirects the target's
     *               port to this proxy leave the proxy's own connections alone
     */
    public static DelayProxy start(InetSocketAddress listen, InetSocketAddress target, InetAddress source, Duration delay)
            throws IOException {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(listen);
        DelayProxy proxy = new DelayProxy(server, target, source, delay);
        Thread acceptor = new Thread(proxy::acceptLoop, "delay-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
        return proxy;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException closed) {
                return;
            }
            try {
                link(client);
            } catch (IOException targetDown) {
                closeQuietly(client); // the caller sees the connection refused, as it would without the proxy
            }
        }
    }

    private void link(Socket client) throws IOException {
        Socket upstream = new Socket();
        try {
            if (source != null) {
                upstream.bind(new InetSocketAddress(source, 0));
            }
            upstream.connect(target);
        } catch (IOException e) {
            upstream.close();
            throw e;
        }
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        open.add(client);
        open.add(upstream);
        Runnable tearDown = () -> {
            closeQuietly(client);
            closeQuietly(upstream);
        };
        AtomicInteger ends = new AtomicInteger(2); // both directions ended: close
        Runnable ended = () -> {
            if (ends.decrementAndGet() == 0) {
                tearDown.run();
            }
        };
        String name = "delay-proxy-" + port() + "-" + connections.incrementAndGet();
        new DelayedPipe(client, upstream, delayNanos, tearDown, ended).start(name + "-up");
        new DelayedPipe(upstream, client, delayNanos, tearDown, ended).start(name + "-down");
    }

    private void closeQuietly(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // closing is all that is left to do with it
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            closeQuietly(s);
        }
    }
}
