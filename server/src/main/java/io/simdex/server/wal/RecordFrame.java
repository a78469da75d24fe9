package io.simdex.server.wal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * One record of a log segment: its body framed by its length and checksum, little-endian.
 *
 * <pre>
 *   0              4              8
 *   +--------------+--------------+--------------------------+
 *   | body length  | CRC32C(body) | body (body length bytes) |
 *   +--------------+--------------+--------------------------+
 * </pre>
 *
 * A crash can leave the last records of the newest segment torn (written in part, or pages of
 * them never written): reading stops at the first frame whose length runs past the end or whose
 * checksum does not match, or whose length is 0 (a body is never empty; a zero-filled tail
 * would otherwise read as records). Such a record was never forced, so no write it carries was
 * acknowledged.
 */
final class RecordFrame {
    static final int LENGTH_OFFSET = 0;
    static final int CRC_OFFSET = 4;
    static final int HEADER_BYTES = 8;

    private RecordFrame() {
    }

    /** The header of {@code body} (its position to its limit), ready to write before it. */
    static ByteBuffer header(ByteBuffer body) {
        ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(LENGTH_OFFSET, body.remaining()).putInt(CRC_OFFSET, crc(body));
        return h;
    }

    /**
     * Hands each whole record's body in {@code segment} (position to limit) to {@code body}, in
     * order; returns the offset after the last whole record, which is the segment's limit when
     * nothing is torn.
     */
    static int read(ByteBuffer segment, Consumer<ByteBuffer> body) {
        ByteBuffer s = segment.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int at = s.position();
        while (s.limit() - at >= HEADER_BYTES) {
            int length = s.getInt(at + LENGTH_OFFSET);
            if (length <= 0 || length > s.limit() - at - HEADER_BYTES) {
                break;
            }
            ByteBuffer b = s.duplicate().position(at + HEADER_BYTES).limit(at + HEADER_BYTES + length).slice()
                    .order(ByteOrder.LITTLE_ENDIAN);
            if (crc(b) != s.getInt(at + CRC_OFFSET)) {
                break;
            }
            body.accept(b);
            at += HEADER_BYTES + length;
        }
        return at;
    }

    private static int crc(ByteBuffer body) {
        CRC32C crc = new CRC32C();
        crc.update(body.duplicate());
        return (int) crc.getValue();
    }
}
