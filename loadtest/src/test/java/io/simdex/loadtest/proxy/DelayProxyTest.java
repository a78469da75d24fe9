package io.simdex.loadtest.proxy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The proxy against an echo server in this JVM: bytes forwarded exactly, in order, and no sooner than the delay. */
class DelayProxyTest {
    private static final InetSocketAddress ANY_LOOPBACK_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private ServerSocket echo;
    /** Remote address of each connection the echo server accepted. */
    private final BlockingQueue<InetAddress> peers = new LinkedBlockingQueue<>();
    private DelayProxy proxy;

    @BeforeEach
    void startEcho() throws IOException {
        echo = new ServerSocket();
        echo.bind(ANY_LOOPBACK_PORT);
        Thread t = new Thread(this::echoLoop, "echo");
        t.setDaemon(true);
        t.start();
    }

    /** Each connection copies its input to its output, and half-closes when the input ends. */
    private void echoLoop() {
        while (true) {
            Socket s;
            try {
                s = echo.accept();
            } catch (IOException closed) {
                return;
            }
            peers.add(s.getInetAddress());
            CompletableFuture.runAsync(() -> {
                try (s) {
                    s.getInputStream().transferTo(s.getOutputStream());
                    s.shutdownOutput();
                } catch (IOException e) {
                    // the test's own assertions report what went missing
                }
            });
        }
    }

    @AfterEach
    void stop() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        echo.close();
    }

    private Socket connect(Duration delay, InetAddress source) throws IOException {
        proxy = DelayProxy.start(ANY_LOOPBACK_PORT, (InetSocketAddress) echo.getLocalSocketAddress(), source, delay);
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        s.setTcpNoDelay(true);
        return s;
    }

    @Test
    void forward_megabytesInWritesOfMixedSizes_echoedBackExactlyThenEndOfStream() throws Exception {
        byte[] sent = new byte[3 << 20];
        Random random = new Random(20);
        random.nextBytes(sent);
        try (Socket s = connect(Duration.ofMillis(2), null)) {
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    for (int at = 0; at < sent.length; ) {
                        int n = Math.min(sent.length - at, 1 + random.nextInt(100_000));
                        out.write(sent, at, n);
                        at += n;
                    }
                    s.shutdownOutput(); // the echo sees the end only after every byte
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            byte[] received = readToEnd(s.getInputStream());
            writer.get(30, TimeUnit.SECONDS);

            assertEquals(sent.length, received.length);
            assertArrayEquals(sent, received);
        }
    }

    @Test
    void forward_zeroDelay_forwardsExactly() throws Exception {
        byte[] sent = "a short request".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (Socket s = connect(Duration.ZERO, null)) {
            s.getOutputStream().write(sent);
            s.shutdownOutput();

            assertArrayEquals(sent, readToEnd(s.getInputStream()));
        }
    }

    @Test
    void roundTrip_delay25ms_takesAtLeastTwiceTheDelay() throws Exception {
        long delayNanos = Duration.ofMillis(25).toNanos();
        try (Socket s = connect(Duration.ofNanos(delayNanos), null)) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                out.write(i);
                assertEquals(i, in.read());
                long took = System.nanoTime() - start;

                assertTrue(took >= 2 * delayNanos, "round trip " + took + " ns, less than twice the one-way delay");
            }
        }
    }

    @Test
    void connect_source127002_targetSeesThatAddress() throws Exception {
        InetAddress source = InetAddress.getByName("127.0.0.2");
        try (Socket s = connect(Duration.ZERO, source)) {
            s.getOutputStream().write(1);
            assertEquals(1, s.getInputStream().read());

            assertEquals(source, peers.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void connect_targetRefuses_clientConnectionClosed() throws Exception {
        InetSocketAddress target = (InetSocketAddress) echo.getLocalSocketAddress();
        echo.close(); // nothing listens there any more
        proxy = DelayProxy.start(ANY_LOOPBACK_PORT, target, null, Duration.ZERO);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            s.setSoTimeout(10_000);
            int read;
            try {
                read = s.getInputStream().read();
            } catch (SocketException reset) {
                read = -1;
            }

            assertEquals(-1, read, "the proxy kept a connection its target refused");
        }
    }

    @Test
    void address_nonLoopbackOrMalformed_refusedNamingIt() {
        IllegalArgumentException remote = assertThrows(IllegalArgumentException.class,
                () -> DelayProxyCommand.address("192.0.2.1:7511"));
        assertTrue(remote.getMessage().contains("192.0.2.1"), remote.getMessage());
        IllegalArgumentException noPort = assertThrows(IllegalArgumentException.class, () -> DelayProxyCommand.address("7511"));
        assertTrue(noPort.getMessage().contains("\"7511\""), noPort.getMessage());
        assertEquals(new InetSocketAddress(InetAddress.getLoopbackAddress(), 7511), DelayProxyCommand.address("127.0.0.1:7511"));
    }

    @Test
    void start_negativeDelay_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DelayProxy.start(ANY_LOOPBACK_PORT,
                (InetSocketAddress) echo.getLocalSocketAddress(), null, Duration.ofMillis(-1)));
        assertTrue(e.getMessage().contains("PT-0.001S"), e.getMessage());
    }

    private static byte[] readToEnd(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            all.write(buffer, 0, n);
        }
        return all.toByteArray();
    }
}
