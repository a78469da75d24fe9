package io.simdex.router.shard;

/**
 * A page of a shard's id -> fingerprint bindings ({@link ShardClient#exportIds}) and where the
 * next begins: a position in the answering node's own order, so the next page must be asked of
 * the same node ({@link ShardClient#onNode}).
 *
 * @param done          nothing follows (the position is then 0, 0, 0)
 * @param generation    the retention generation the next page begins in
 * @param mapGeneration the map generation of that generation's id map
 * @param segment       the segment of that map
 */
public record ExportIdsPage(String[] ids, long[] fingerprints, boolean done, long generation, int mapGeneration, int segment) {
}
