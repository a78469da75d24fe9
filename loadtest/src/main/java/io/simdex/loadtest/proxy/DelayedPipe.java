package io.simdex.loadtest.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * One direction of a proxied connection: what {@code from} sends reaches {@code to} {@code delayNanos}
 * after the proxy read it, in the order read. A reader thread queues stamped chunks, a writer thread
 * sends each once due; a full queue stops the reader, so a slow receiver slows the sender as TCP
 * would. End of stream is passed on as a half-close, also delayed.
 */
final class DelayedPipe {
    /** Largest chunk read at once. */
    private static final int CHUNK_BYTES = 64 * 1024;
    /** Chunks in flight per direction: up to 16 MB, far above what 1 ms holds at loopback rates. */
    private static final int MAX_CHUNKS = 256;

    /** Bytes read at {@code dueNanos - delay}; no bytes: the sender closed its side. */
    private record Chunk(long dueNanos, byte[] bytes) {
        boolean isEnd() {
            return bytes == null;
        }
    }

    private final Socket from;
    private final Socket to;
    private final long delayNanos;
    private final Runnable onFailure;
    private final Runnable onEnd;
    private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(MAX_CHUNKS);

    /**
     * @param onFailure called once if reading or writing fails (the connection is then torn down)
     * @param onEnd     called once the end of {@code from}'s stream has been passed on to {@code to}
     */
    DelayedPipe(Socket from, Socket to, long delayNanos, Runnable onFailure, Runnable onEnd) {
        this.from = from;
        this.to = to;
        this.delayNanos = delayNanos;
        this.onFailure = onFailure;
        this.onEnd = onEnd;
    }

    void start(String name) {
        daemon(name + "-read", this::readLoop).start();
        daemon(name + "-write", this::writeLoop).start();
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    private void readLoop() {
        byte[] buffer = new byte[CHUNK_BYTES];
        try {
            InputStream in = from.getInputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (n > 0) {
                    queue.put(new Chunk(System.nanoTime() + delayNanos, Arrays.copyOf(buffer, n)));
                }
            }
            queue.put(new Chunk(System.nanoTime() + delayNanos, null));
        } catch (IOException e) {
            onFailure.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            onFailure.run();
        }
    }

    private void writeLoop() {
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                Chunk c = queue.take();
                long wait;
                while ((wait = c.dueNanos() - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                if (c.isEnd()) {
                    to.shutdownOutput();
                    onEnd.run();
                    return;
                }
                out.write(c.bytes());
            }
        } catch (IOException e) {
            onFailure.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            onFailure.run();
        }
    }
}
