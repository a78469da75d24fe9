package io.simdex.client.batch;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
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
    private final CharsetDecoder utf8 = strictUtf8();
    /** Bytes read from the file and not yet handed out: {@code buffer[start..end)}. */
    private final byte[] buffer = new byte[1 << 16];
    private int start;
    private int end;
    private byte[] line = new byte[1 << 12];
    /** The file offset of {@code buffer[start]}. */
    private long offset;
    private long lineStart;

    FileLines(Path file) throws IOException {
        this.in = Files.newInputStream(file);
    }

    /** The next line, or null at the end of the file; {@link #lineStart} is then where it began. */
    String next() throws IOException {
        lineStart = offset;
        int length = 0;
        while (true) {
            if (start == end && !fill()) {
                return length == 0 ? null : decodeLine(utf8, line, length);
            }
            int newline = start;
            while (newline < end && buffer[newline] != '\n') {
                newline++;
            }
            int take = newline - start;
            if (length + take > line.length) {
                line = Arrays.copyOf(line, Math.max(line.length * 2, length + take));
            }
            System.arraycopy(buffer, start, line, length, take);
            length += take;
            offset += take;
            start = newline;
            if (newline < end) { // the '\n'
                start++;
                offset++;
                return decodeLine(utf8, line, length);
            }
        }
    }

    private boolean fill() throws IOException {
        int read = in.read(buffer);
        start = 0;
        end = Math.max(read, 0);
        return read > 0;
    }

    /** Where the line {@link #next} returned last begins, in bytes from the start of the file. */
    long lineStart() {
        return lineStart;
    }

    /** A UTF-8 decoder that fails on bytes that are not UTF-8; one per thread, as decoders keep state. */
    static CharsetDecoder strictUtf8() {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    /** Decodes {@code bytes} as one line would be: strict UTF-8, without a final {@code '\r'}. */
    static String decodeLine(CharsetDecoder utf8, byte[] bytes, int length) throws CharacterCodingException {
        int end = length > 0 && bytes[length - 1] == '\r' ? length - 1 : length;
        return utf8.reset().decode(ByteBuffer.wrap(bytes, 0, end)).toString();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
