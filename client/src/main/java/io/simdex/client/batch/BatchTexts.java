package io.simdex.client.batch;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The texts of a batch's text documents, read again from the file when a call needs them:
 * Query and Dedup send texts, so that the server verifies them as the collection says
 * (sketches, short-text fingerprints) and stores what verification reads, while the batch holds
 * only each line's offset ({@link BatchDocs#lineOffset}), not its text. Positional reads: safe
 * from the worker threads that build calls.
 */
final class BatchTexts implements Closeable {
    private static final int CHUNK = 1 << 13;
    /** Each worker thread's read buffer (grown to its longest line) and decoder, so a text read allocates only its text. */
    private static final ThreadLocal<byte[]> BUFFER = ThreadLocal.withInitial(() -> new byte[CHUNK]);
    private static final ThreadLocal<CharsetDecoder> UTF8 = ThreadLocal.withInitial(FileLines::strictUtf8);

    private final Path file;
    private final FileChannel channel;

    BatchTexts(Path file) throws IOException {
        this.file = file;
        this.channel = FileChannel.open(file, StandardOpenOption.READ);
    }

    /** The text of the document whose line starts at {@code offset}. */
    String text(long offset) {
        try {
            byte[] bytes = BUFFER.get();
            int length = 0;
            long at = offset;
            while (true) {
                if (length == bytes.length) {
                    bytes = Arrays.copyOf(bytes, length * 2);
                    BUFFER.set(bytes);
                }
                int read = channel.read(ByteBuffer.wrap(bytes, length, bytes.length - length), at);
                if (read < 0) {
                    break;
                }
                int newline = indexOf(bytes, length, length + read);
                if (newline >= 0) {
                    length = newline;
                    break;
                }
                length += read;
                at += read;
            }
            String text = BatchLine.parse(FileLines.decodeLine(UTF8.get(), bytes, length)).text();
            if (text == null) {
                throw new IllegalStateException(file + ": the line at byte " + offset + " holds no text any more");
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " again at byte " + offset, e);
        }
    }

    private static int indexOf(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
