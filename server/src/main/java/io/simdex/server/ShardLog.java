package io.simdex.server;

import io.simdex.server.store.DiskSpace;
import io.simdex.server.store.MapFiles;
import io.simdex.server.store.StoreSizing;
import io.simdex.server.wal.LogFiles;
import io.simdex.server.wal.RecordBody;
import io.simdex.server.wal.WriteAheadLog;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A shard node's changes as write-ahead log records ({@link Durability#FSYNC}), and their replay.
 * A record is the op (one byte, the constants below) and the call's arguments in the order of
 * {@link MutationLog}'s method, encoded by {@link RecordBody}. Every shard write is idempotent,
 * so replaying records the stores already hold changes nothing; replay runs in log order.
 * Bucket adds replay with the presence check on, as their entries may be in the stores already.
 */
final class ShardLog implements MutationLog {
    /** The log's directory under the data directory: the dot keeps it apart from collection names. */
    static final String DIR = "write.log";

    private static final byte BUCKET_ADD = 1;
    private static final byte BUCKET_REMOVE = 2;
    private static final byte BIND_IDS = 3;
    private static final byte UNBIND_IDS = 4;
    private static final byte ATTACH_IDS = 5;
    private static final byte DETACH_IDS = 6;
    private static final byte PUT_TEXTS = 7;
    private static final byte RECORD_CONTENT = 8;
    private static final byte PREPARE_GENERATION = 9;
    private static final byte EXPIRE_BEFORE = 10;
    private static final byte ADD_URLS = 11;
    private static final byte SWEEP_URLS = 12;
    private static final byte DROP_URL_JOB = 13;
    private static final byte DROP_PARTITIONS = 14;
    private static final byte DROP_TEXTS = 15;

    /** Room the disk must have for the log's appends to be tried again after one found none. */
    static final int ROOM_PROBE_BYTES = 1 << 20;
    private static final Logger LOG = LoggerFactory.getLogger(ShardLog.class);

    private final WriteAheadLog log;
    private final Path dir;

    private ShardLog(WriteAheadLog log, Path dir) {
        this.log = log;
        this.dir = dir;
    }

    /**
     * Replays what a node left in {@code dataDir}'s log when it stopped uncleanly (with either
     * setting), then returns the log for {@code durability}: a new one for FSYNC, {@link #NONE}
     * for PROCESS.
     */
    static MutationLog open(Path dataDir, Function<String, StoreSizing> sizing, Durability durability,
                            WriteAheadLog.Channels channels, long segmentBytes) {
        Path dir = dataDir.resolve(DIR);
        if (LogFiles.hasSegments(dir)) {
            recover(dataDir, sizing, dir);
        }
        return durability == Durability.FSYNC ? new ShardLog(WriteAheadLog.open(dir, dataDir, segmentBytes, channels), dir) : NONE;
    }

    /**
     * Replays the log into the stores, forces them and deletes the log. Every store is opened
     * with recovery: a clean-close marker that an OS crash kept (its deletion at open was never
     * forced) must not spare a map written to afterwards.
     */
    private static void recover(Path dataDir, Function<String, StoreSizing> sizing, Path dir) {
        MapFiles.forgetCleanCloses(dataDir);
        ShardNode replay = new ShardNode(dataDir, sizing, NONE);
        try {
            LogFiles.replay(dir, body -> apply(replay, body));
        } finally {
            replay.close();
        }
        LogFiles.forceStores(dataDir, dir);
        LogFiles.deleteSegments(dir);
    }

    private static void apply(ShardNode node, ByteBuffer b) {
        byte op = b.get();
        switch (op) {
            case BUCKET_ADD -> node.bucketAdd(RecordBody.str(b), b.getLong(), b.getInt(), RecordBody.longs(b), true);
            case BUCKET_REMOVE -> node.bucketRemove(RecordBody.str(b), b.getLong(), b.getInt(), RecordBody.longs(b));
            case BIND_IDS -> node.bindIds(RecordBody.str(b), b.getLong(), RecordBody.strs(b), RecordBody.longs(b));
            case UNBIND_IDS -> node.unbindIds(RecordBody.str(b), RecordBody.strs(b));
            case ATTACH_IDS -> node.attachIds(RecordBody.str(b), b.getLong(), RecordBody.longs(b), RecordBody.strs(b));
            case DETACH_IDS -> node.detachIds(RecordBody.str(b), b.getLong(), RecordBody.longs(b), RecordBody.strs(b));
            case PUT_TEXTS -> node.putTexts(RecordBody.str(b), b.getLong(), RecordBody.strs(b), RecordBody.strs(b));
            case RECORD_CONTENT -> node.recordContent(RecordBody.str(b), b.getLong(), RecordBody.hashes(b), RecordBody.longs(b));
            case PREPARE_GENERATION -> node.prepareGeneration(RecordBody.str(b), b.getLong(), b.get() != 0);
            case EXPIRE_BEFORE -> node.expireBefore(RecordBody.str(b), b.getLong());
            case ADD_URLS -> node.checkUrls(RecordBody.str(b), RecordBody.hashes(b), b.getLong(), b.getLong(), false);
            case SWEEP_URLS -> node.sweepUrls(b.getLong());
            case DROP_URL_JOB -> node.dropUrlJob(RecordBody.str(b));
            case DROP_PARTITIONS -> node.dropPartitions(PartitionSet.of(RecordBody.ints(b)));
            case DROP_TEXTS -> node.dropTexts(RecordBody.str(b), b.getLong(), RecordBody.strs(b));
            default -> throw new IllegalStateException("log record with unknown op " + op);
        }
    }

    @Override
    public void bucketAdd(String collection, long generation, int table, long[] fps) {
        append(new RecordBody.Writer(BUCKET_ADD).str(collection).i64(generation).i32(table).longs(fps));
    }

    @Override
    public void bucketRemove(String collection, long generation, int table, long[] fps) {
        append(new RecordBody.Writer(BUCKET_REMOVE).str(collection).i64(generation).i32(table).longs(fps));
    }

    @Override
    public void bindIds(String collection, long generation, String[] ids, long[] fps) {
        append(new RecordBody.Writer(BIND_IDS).str(collection).i64(generation).strs(ids).longs(fps));
    }

    @Override
    public void unbindIds(String collection, String[] ids) {
        append(new RecordBody.Writer(UNBIND_IDS).str(collection).strs(ids));
    }

    @Override
    public void attachIds(String collection, long generation, long[] fps, String[] ids) {
        append(new RecordBody.Writer(ATTACH_IDS).str(collection).i64(generation).longs(fps).strs(ids));
    }

    @Override
    public void detachIds(String collection, long generation, long[] fps, String[] ids) {
        append(new RecordBody.Writer(DETACH_IDS).str(collection).i64(generation).longs(fps).strs(ids));
    }

    @Override
    public void putTexts(String collection, long generation, String[] ids, String[] texts) {
        append(new RecordBody.Writer(PUT_TEXTS).str(collection).i64(generation).strs(ids).strs(texts));
    }

    @Override
    public void dropTexts(String collection, long generation, String[] ids) {
        append(new RecordBody.Writer(DROP_TEXTS).str(collection).i64(generation).strs(ids));
    }

    @Override
    public void recordContent(String collection, long generation, byte[][] hashes, long[] fps) {
        append(new RecordBody.Writer(RECORD_CONTENT).str(collection).i64(generation).hashes(hashes).longs(fps));
    }

    @Override
    public void prepareGeneration(String collection, long generation, boolean evenIfUnused) {
        append(new RecordBody.Writer(PREPARE_GENERATION).str(collection).i64(generation).bool(evenIfUnused));
    }

    @Override
    public void expireBefore(String collection, long minGeneration) {
        append(new RecordBody.Writer(EXPIRE_BEFORE).str(collection).i64(minGeneration));
    }

    @Override
    public void addUrls(String job, byte[][] hashes, long now, long expiresAt) {
        append(new RecordBody.Writer(ADD_URLS).str(job).hashes(hashes).i64(now).i64(expiresAt));
    }

    @Override
    public void sweepUrls(long now) {
        append(new RecordBody.Writer(SWEEP_URLS).i64(now));
    }

    @Override
    public void dropUrlJob(String job) {
        append(new RecordBody.Writer(DROP_URL_JOB).str(job));
    }

    @Override
    public void dropPartitions(PartitionSet partitions) {
        append(new RecordBody.Writer(DROP_PARTITIONS).ints(partitions.toArray()));
    }

    /**
     * Appends the record. One that the disk has no room for leaves the log as it was and puts
     * the process short of disk ({@link DiskSpace}): its write is applied but not logged, and
     * fails, so it is not acknowledged (a retry applies and logs it again). The shortage ends
     * once a file of {@link #ROOM_PROBE_BYTES} can be written beside the log.
     */
    private void append(RecordBody.Writer record) {
        try {
            log.append(record.body());
        } catch (WriteAheadLog.NotWrittenException e) {
            IOException noSpace = DiskSpace.noSpace(e);
            if (noSpace == null) {
                throw e;
            }
            throw DiskSpace.cannotWrite(this, e.file(), noSpace, this::probeRoom);
        }
    }

    /** Ends the shortage if a file of {@link #ROOM_PROBE_BYTES} can be written in the log's directory (and deletes it). */
    private void probeRoom() {
        Path probe = dir.resolve("room.probe");
        try {
            try (FileChannel ch = FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                ByteBuffer zeros = ByteBuffer.allocate(ROOM_PROBE_BYTES);
                while (zeros.hasRemaining()) {
                    ch.write(zeros);
                }
            } finally {
                Files.deleteIfExists(probe);
            }
            DiskSpace.roomAgain(this);
        } catch (IOException e) {
            if (DiskSpace.noSpace(e) == null) {
                LOG.warn("{}: cannot write {} to see whether the disk has room for the log", dir, probe.getFileName(), e);
            }
        }
    }

    @Override
    public void awaitDurable() {
        log.awaitForced(log.end());
    }

    @Override
    public CompletableFuture<Void> durable() {
        return log.forcedTo(log.end());
    }

    @Override
    public WriteAheadLog.Stats stats() {
        return log.stats();
    }

    @Override
    public void checkpoint() {
        log.checkpoint();
    }

    @Override
    public boolean failed() {
        return log.failed();
    }

    @Override
    public void close() {
        DiskSpace.roomAgain(this);
        log.close();
    }
}
