package io.simdex.router.index;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;

/**
 * Where an Export goes on: the shard group, the node its pages are read from (positions are
 * that node's own), and the position there; with the collection and the placement it was given
 * under, so that a cursor of another collection is refused and one given before partitions
 * moved is known as such.
 *
 * <pre>
 * wire form: base64url (no padding) of
 *   version (1 byte) | placement (8) | collection (modified UTF-8, 2-byte length) |
 *   group (4) | node (4) | generation (8) | map generation (4) | segment (4)
 * </pre>
 */
public record ExportCursor(long placement, String collection, int group, int node, long generation, int mapGeneration, int segment) {
    private static final byte VERSION = 1;

    public String encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(placement);
            out.writeUTF(collection);
            out.writeInt(group);
            out.writeInt(node);
            out.writeLong(generation);
            out.writeInt(mapGeneration);
            out.writeInt(segment);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not from a byte array
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.toByteArray());
    }

    /** The cursor {@code text} encodes; IllegalArgumentException when it is not one {@link #encode} wrote. */
    public static ExportCursor decode(String text) {
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not base64url");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            if (in.readByte() != VERSION) {
                throw new IllegalArgumentException("unknown version");
            }
            ExportCursor c = new ExportCursor(in.readLong(), in.readUTF(), in.readInt(), in.readInt(), in.readLong(), in.readInt(), in.readInt());
            if (in.read() != -1) {
                throw new IllegalArgumentException("bytes after its end");
            }
            if (c.group < 0 || c.mapGeneration < 0 || c.segment < 0 || c.node < -1) {
                throw new IllegalArgumentException("a negative position");
            }
            return c;
        } catch (IOException e) {
            throw new IllegalArgumentException("cut short");
        }
    }
}
