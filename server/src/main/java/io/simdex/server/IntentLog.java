package io.simdex.server;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The Dedup intents {@link BucketLocks} keeps, in a file of the node's data directory, so that
 * a node killed -9 (the embedded default's whole process) still hands a call's intent to the
 * next holder of its keys after the restart: the call may have written part of its documents
 * before the kill.
 *
 * <p>Records are appended: an intent (token, stamp, keys, documents) or a token done. Once no
 * intent is pending the file starts over from offset 0 under the next epoch; a reader stops at
 * the first record that is torn, fails its checksum or carries another epoch than the first,
 * so what an earlier epoch left behind is never read. With {@code force} (FSYNC durability)
 * {@link #force} puts the intents on stable storage before the caller's first write.
 * Record: length (int, of what follows the checksum), CRC32C (int), epoch (long), kind (byte),
 * token (long); an intent adds stamp (long), key count (int), keys (longs), documents (int
 * length, bytes).
 */
final class IntentLog implements Closeable {
    static final String FILE = "dedup-intents";
    private static final byte INTENT = 1;
    private static final byte DONE = 2;
    private static final int HEADER = 8;

    /** An intent read back, with the keys it was recorded on. */
    record Entry(LockGrant.Intent intent, long[] keys) {
    }

    private final FileChannel channel;
    private final boolean force;
    private final List<Entry> pending;
    private long epoch;
    private long end;
    /** Records appended (one writer at a time: BucketLocks' monitor), and how many of them a force has covered. */
    private volatile long appended;
    private long forced;
    private final Object forcing = new Object();

    private IntentLog(FileChannel channel, boolean force) throws IOException {
        this.channel = channel;
        this.force = force;
        Map<Long, Entry> live = new LinkedHashMap<>();
        ByteBuffer all = ByteBuffer.allocate((int) Math.min(channel.size(), Integer.MAX_VALUE));
        channel.read(all, 0);
        all.flip();
        long first = -1;
        while (all.remaining() >= HEADER) {
            int length = all.getInt();
            int crc = all.getInt();
            if (length < 17 || length > all.remaining()) {
                break;
            }
            byte[] body = new byte[length];
            all.get(body);
            CRC32C check = new CRC32C();
            check.update(body);
            ByteBuffer b = ByteBuffer.wrap(body);
            long recordEpoch = b.getLong();
            if ((int) check.getValue() != crc || (first >= 0 && recordEpoch != first)) {
                break;
            }
            first = recordEpoch;
            byte kind = b.get();
            long token = b.getLong();
            if (kind == DONE) {
                live.remove(token);
            } else {
                long stamp = b.getLong();
                long[] keys = new long[b.getInt()];
                for (int i = 0; i < keys.length; i++) {
                    keys[i] = b.getLong();
                }
                byte[] docs = new byte[b.getInt()];
                b.get(docs);
                live.put(token, new Entry(new LockGrant.Intent(token, stamp, docs), keys));
            }
        }
        pending = List.copyOf(live.values());
        epoch = first + 1;
        // Start over with what is still pending: the file holds nothing else.
        for (Entry e : pending) {
            intent(e.intent(), e.keys());
        }
        force();
    }

    /** Opens (or creates) the node's intent file in {@code dataDir}; {@code force}: fsync each intent. */
    static IntentLog open(Path dataDir, boolean force) {
        try {
            Files.createDirectories(dataDir);
            return new IntentLog(FileChannel.open(dataDir.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE), force);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + dataDir.resolve(FILE), e);
        }
    }

    /** The intents the file held when opened, not done. */
    List<Entry> pending() {
        return pending;
    }

    void intent(LockGrant.Intent intent, long[] keys) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + 8 + 1 + 8 + 8 + 4 + 8 * keys.length + 4 + intent.docs().length);
        b.position(HEADER);
        b.putLong(epoch).put(INTENT).putLong(intent.token()).putLong(intent.stamp()).putInt(keys.length);
        for (long key : keys) {
            b.putLong(key);
        }
        b.putInt(intent.docs().length).put(intent.docs());
        append(b);
    }

    void done(long token) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + 8 + 1 + 8);
        b.position(HEADER);
        b.putLong(epoch).put(DONE).putLong(token);
        append(b);
    }

    /** Nothing is pending: the next record starts the file over, under a new epoch. */
    void empty() {
        epoch++;
        end = 0;
    }

    /**
     * With FSYNC durability, puts what was appended so far on stable storage. Callers that
     * arrive while a force runs share the next one (group commit): one waits for the disk, the
     * others for it.
     */
    void force() {
        if (!force) {
            return;
        }
        long target = appended;
        synchronized (forcing) {
            if (forced >= target) {
                return;
            }
            long upTo = appended;
            try {
                channel.force(false);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot force the Dedup intents", e);
            }
            forced = upTo;
        }
    }

    private void append(ByteBuffer record) {
        int length = record.position() - HEADER;
        CRC32C crc = new CRC32C();
        crc.update(record.array(), HEADER, length);
        record.putInt(0, length).putInt(4, (int) crc.getValue());
        record.flip();
        long start = end;
        try {
            while (record.hasRemaining()) {
                end += channel.write(record, end);
            }
            appended++;
        } catch (IOException e) {
            end = start; // the next record overwrites a torn one, which would hide it from a reader
            throw new UncheckedIOException("cannot write the Dedup intents", e);
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
