package io.simdex.client.batch;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A UTF-8 file's lines with the byte offset each starts at, so that one can be read again
 * later ({@link BatchTexts}). A line ends at {@code '\n'}, a {@code '\r'} before it dropped, as
 * {@link java.io.BufferedReader#readLine} would for JSONL; bytes that are not UTF-8 fail the
 * line that holds them.
 */
final class FileLines implements Closeable {
    private final InputStream in;
    private byte[] line = new byte[1 << 12];
    private long offset;
    private long lineStart;

    FileLines(Path file) throws IOException {
        this.in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
    }

    /** The next line, or null at the end of the file; {@link #lineStart} is then where it began. */
    String next() throws IOException {
        lineStart = offset;
        int length = 0;
        int b;
        while ((b = in.read()) >= 0) {
            offset++;
            if (b == '\n') {
                return decodeLine(line, length);
            }
            if (length == line.length) {
                line = Arrays.copyOf(line, length * 2);
            }
            line[length++] = (byte) b;
        }
        return length == 0 ? null : decodeLine(line, length);
    }

    /** Where the line {@link #next} returned last begins, in bytes from the start of the file. */
    long lineStart() {
        return lineStart;
    }

    /** Decodes {@code bytes} as one line would be: strict UTF-8, without a final {@code '\r'}. */
    static String decodeLine(byte[] bytes, int length) throws CharacterCodingException {
        int end = length > 0 && bytes[length - 1] == '\r' ? length - 1 : length;
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, end)).toString();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
