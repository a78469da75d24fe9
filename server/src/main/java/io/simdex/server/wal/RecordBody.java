package io.simdex.server.wal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The fields of a record body, little-endian: {@code byte}, {@code int}, {@code long}; a string
 * as its UTF-8 length (int) and bytes; an array as its length (int) and elements, a 16-byte
 * hash as its bytes. {@link Writer} builds a body, the static readers take fields off one.
 */
public final class RecordBody {
    private RecordBody() {
    }

    /** A growing body; {@link #body()} is what {@link WriteAheadLog#append} takes. */
    public static final class Writer {
        private ByteBuffer buf = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);

        public Writer(byte op) {
            buf.put(op);
        }

        private ByteBuffer room(int bytes) {
            if (buf.remaining() < bytes) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + bytes)).order(ByteOrder.LITTLE_ENDIAN);
                buf = bigger.put(buf.flip());
            }
            return buf;
        }

        public Writer i32(int v) {
            room(4).putInt(v);
            return this;
        }

        public Writer i64(long v) {
            room(8).putLong(v);
            return this;
        }

        public Writer bool(boolean v) {
            room(1).put((byte) (v ? 1 : 0));
            return this;
        }

        public Writer str(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            room(4 + b.length).putInt(b.length).put(b);
            return this;
        }

        public Writer longs(long[] a) {
            room(4 + 8 * a.length).putInt(a.length);
            for (long v : a) {
                buf.putLong(v);
            }
            return this;
        }

        public Writer ints(int[] a) {
            room(4 + 4 * a.length).putInt(a.length);
            for (int v : a) {
                buf.putInt(v);
            }
            return this;
        }

        public Writer strs(String[] a) {
            i32(a.length);
            for (String s : a) {
                str(s);
            }
            return this;
        }

        /** 16-byte hashes (content or URL hashes). */
        public Writer hashes(byte[][] a) {
            room(4 + 16 * a.length).putInt(a.length);
            for (byte[] h : a) {
                buf.put(h);
            }
            return this;
        }

        public ByteBuffer body() {
            return buf.duplicate().flip();
        }
    }

    public static String str(ByteBuffer b) {
        byte[] bytes = new byte[b.getInt()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    public static long[] longs(ByteBuffer b) {
        long[] a = new long[b.getInt()];
        for (int i = 0; i < a.length; i++) {
            a[i] = b.getLong();
        }
        return a;
    }

    public static int[] ints(ByteBuffer b) {
        int[] a = new int[b.getInt()];
        for (int i = 0; i < a.length; i++) {
            a[i] = b.getInt();
        }
        return a;
    }

    public static String[] strs(ByteBuffer b) {
        String[] a = new String[b.getInt()];
        for (int i = 0; i < a.length; i++) {
            a[i] = str(b);
        }
        return a;
    }

    public static byte[][] hashes(ByteBuffer b) {
        byte[][] a = new byte[b.getInt()][16];
        for (byte[] h : a) {
            b.get(h);
        }
        return a;
    }
}
