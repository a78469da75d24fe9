package io.simdex.server;

import io.simdex.server.wal.WriteAheadLog;

import java.util.concurrent.CompletableFuture;

/**
 * What a {@link ShardNode} tells its write-ahead log: each change after it has applied it (see
 * {@link io.simdex.server.wal.WriteAheadLog} for why after). {@link #NONE}, the log of a node
 * with {@link Durability#PROCESS}, does nothing; {@link ShardLog} records.
 */
interface MutationLog {
    MutationLog NONE = new MutationLog() {
    };

    default void bucketAdd(String collection, long generation, int table, long[] fps) {
    }

    default void bucketRemove(String collection, long generation, int table, long[] fps) {
    }

    default void bindIds(String collection, long generation, String[] ids, long[] fps) {
    }

    default void unbindIds(String collection, String[] ids) {
    }

    default void attachIds(String collection, long generation, long[] fps, String[] ids) {
    }

    default void detachIds(String collection, long generation, long[] fps, String[] ids) {
    }

    default void putTexts(String collection, long generation, String[] ids, String[] texts) {
    }

    default void dropTexts(String collection, long generation, String[] ids) {
    }

    default void recordContent(String collection, long generation, byte[][] hashes, long[] fps) {
    }

    default void prepareGeneration(String collection, long generation, boolean evenIfUnused) {
    }

    default void expireBefore(String collection, long minGeneration) {
    }

    default void addUrls(String job, byte[][] hashes, long now, long expiresAt) {
    }

    default void sweepUrls(long now) {
    }

    default void dropUrlJob(String job) {
    }

    default void dropPartitions(PartitionSet partitions) {
    }

    /** Returns once every change logged so far is on stable storage; throws if it cannot be. */
    default void awaitDurable() {
    }

    /** As {@link #awaitDurable}, without a thread waiting: completed once every change logged so far is on stable storage. */
    default CompletableFuture<Void> durable() {
        return CompletableFuture.completedFuture(null);
    }

    /** What the log has done since the node opened it; {@link WriteAheadLog.Stats#NONE} without one. */
    default WriteAheadLog.Stats stats() {
        return WriteAheadLog.Stats.NONE;
    }

    /** Forces the stores and drops the log records they now hold. */
    default void checkpoint() {
    }

    /** Whether the log has failed for good (a force failed): no write is acknowledged until the node restarts. */
    default boolean failed() {
        return false;
    }

    /** After the stores closed: forces them and deletes the log, so the next open replays nothing. */
    default void close() {
    }
}
