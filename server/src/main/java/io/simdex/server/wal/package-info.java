/**
 * The write-ahead log behind {@code --durability fsync}: one log per shard node, in segment files
 * under {@code DATA/write.log/}.
 *
 * <p>Protocol. A node applies a write to its Chronicle Map stores, then appends one record
 * ({@link io.simdex.server.wal.RecordFrame}: length, CRC32C, body) describing it. A caller that
 * acknowledges the write first waits until a force (FileChannel.force, fdatasync) has covered the
 * record: one syncer thread forces whatever is appended, so all writers waiting during one force
 * share the next (group commit). The embedded server waits once per public request, after all its
 * shard calls; a shard process waits once per shard call it answers.
 *
 * <p>Checkpoint. When the current segment passes 64 MB, a new segment starts and the stores are
 * forced file by file (fsync of a file writes back its memory-mapped dirty pages on Linux); the
 * older segments are then deleted. A clean close does the same and leaves no segment.
 *
 * <p>Recovery. A node that finds segments when it opens (an unclean stop, in either mode) opens
 * every store with Chronicle Map recovery, replays the records in log order (every shard write is
 * idempotent), forces the stores and deletes the segments. A torn record at the end of the newest
 * segment was never forced, hence never acknowledged, and is skipped.
 *
 * <p>Failures. A failed force fails the log until the node restarts (the kernel may have dropped
 * the pages it could not write). A failed append (a full disk) does not: the segment is cut back
 * to where the record began, so none is torn before later ones, and only that write fails; a new
 * segment that cannot be made skips its checkpoint and the log goes on in the current one.
 *
 * <p>Limits. Store pages written back by the kernel between checkpoints are not ordered with the
 * log, so after a power loss a map file can hold part of the changes since the last checkpoint;
 * replay reapplies them all, and Chronicle Map's recovery must make the file readable first.
 * Writes that race on one key are replayed in log order, which may differ from the order they
 * were applied in. Partitions pulled from a peer are not logged: the pull forces the stores
 * (a checkpoint) before it reports done.
 */
package io.simdex.server.wal;
