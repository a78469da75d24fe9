package io.simdex.server.store;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The rewrite in flight of each writer slot, kept where a killed process cannot take it with
 * it: Chronicle Map's recovery drops an entry whose checksum does not match, so an entry the
 * process was killed in the middle of rewriting is gone after the restart, with everything it
 * held from earlier, acknowledged writes (all ids of a fingerprint, or a hot fingerprint's
 * header, which lost every one of its ids). A writer records the entry's new value in its slot,
 * writes the map, then clears the slot; a store opened after a crash hands every record still
 * set to {@link #replay}, which redoes that write whole, whether the kill came before, during
 * or after the map write. A slot has one writer at a time (its caller's lock stripe).
 *
 * <p>File {@code NAME.redo}, created by the first record: regions, one per slot once used, each
 * {@code [int capacity][int body length][int CRC32C(body)][body]}, little-endian, allocated
 * at the end of the file (a slot outgrowing its region takes a new one; the old one is clear);
 * the body is the caller's bytes, handed back as written.
 * A clear writes length 0. A record cut short by the kill fails its checksum or still reads as
 * clear, and is ignored: its map write had not begun. Written to mapped memory, not forced:
 * this is about kill -9, like the maps themselves; surviving an OS crash is the write-ahead
 * log's business.
 */
final class RedoSlots implements Closeable {
    private static final int MIN_REGION = 4096;
    private static final int CAPACITY_BYTES = 4;
    private static final int FRAME_HEADER = 8;

    private final Path file;
    /** Each slot's region once it has one, mapped: a record is a few stores, not a system call. */
    private final MappedByteBuffer[] regions;
    private FileChannel channel;
    private long end;

    RedoSlots(Path file, int slots) {
        this.file = file;
        this.regions = new MappedByteBuffer[slots];
    }

    /** Records {@code body} (position to limit) as slot {@code slot}'s write in flight. */
    void record(int slot, ByteBuffer body) {
        int length = body.remaining();
        MappedByteBuffer r = regions[slot];
        if (r == null || r.capacity() < CAPACITY_BYTES + FRAME_HEADER + length) {
            r = allocate(slot, CAPACITY_BYTES + FRAME_HEADER + length);
        }
        // The length last: until it is set, the slot reads as clear.
        r.putInt(CAPACITY_BYTES + 4, crc(body));
        r.put(CAPACITY_BYTES + FRAME_HEADER, body, body.position(), length);
        r.putInt(CAPACITY_BYTES, length);
    }

    /** Marks slot {@code slot}'s write done. */
    void clear(int slot) {
        MappedByteBuffer r = regions[slot];
        if (r != null) {
            r.putInt(CAPACITY_BYTES, 0);
        }
    }

    /**
     * Hands every record still set in {@code file} to {@code redo}, then deletes the file: the
     * caller redoes the writes before anything else writes the maps. A crash during the redo
     * finds the file again and redoes them again; each record is a whole value, so that is
     * harmless.
     */
    static int replay(Path file, Consumer<ByteBuffer> redo) {
        if (!Files.exists(file)) {
            return 0;
        }
        try {
            ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            int records = 0;
            int at = 0;
            while (all.limit() - at >= CAPACITY_BYTES + FRAME_HEADER) {
                int capacity = all.getInt(at);
                if (capacity < MIN_REGION || capacity > all.limit() - at) {
                    break; // a region whose allocation the crash cut short: the last one
                }
                int length = all.getInt(at + CAPACITY_BYTES);
                if (length > 0 && length <= capacity - CAPACITY_BYTES - FRAME_HEADER) {
                    int from = at + CAPACITY_BYTES + FRAME_HEADER;
                    ByteBuffer body = all.duplicate().position(from).limit(from + length).slice();
                    if (crc(body) == all.getInt(at + CAPACITY_BYTES + 4)) {
                        redo.accept(body);
                        records++;
                    }
                }
                at += capacity;
            }
            Files.delete(file);
            return records;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot replay " + file, e);
        }
    }

    /** Deletes {@code file}: after a clean close no write was in flight. */
    static void discard(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private synchronized MappedByteBuffer allocate(int slot, int need) {
        int capacity = Math.max(MIN_REGION, Integer.highestOneBit(need - 1) << 1);
        try {
            if (channel == null) {
                channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
            }
            // Mapping past the end grows the file with zeros: a clear region. Its capacity is
            // written before any record, so a walk of the file finds every record's region.
            MappedByteBuffer r = channel.map(FileChannel.MapMode.READ_WRITE, end, capacity);
            r.order(ByteOrder.LITTLE_ENDIAN).putInt(0, capacity);
            regions[slot] = r;
            end += capacity;
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static int crc(ByteBuffer body) {
        CRC32C crc = new CRC32C();
        crc.update(body.duplicate());
        return (int) crc.getValue();
    }

    @Override
    public synchronized void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close " + file, e);
            }
        }
    }
}
