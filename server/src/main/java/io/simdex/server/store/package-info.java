/**
 * A shard's persisted storage for one collection and generation, in Chronicle Map files:
 * the four permuted bucket tables ({@link io.simdex.server.store.BucketTable}), the id and
 * fingerprint maps ({@link io.simdex.server.store.DocMaps}), content hashes, short texts, and
 * crawl jobs' URL seen-sets ({@link io.simdex.server.store.UrlSeenSet}).
 *
 * <p>A new store keeps its tables packed ({@link io.simdex.server.store.PackedBuckets}): an
 * immutable file of every bucket's sorted residues ({@link io.simdex.server.store.PackedTable})
 * and a delta of what they gained since ({@link io.simdex.server.store.TableDelta}), which a
 * background thread ({@link io.simdex.server.store.PackedCompactions}) packs into a new file once
 * it holds a quarter of them, or once the tables are idle. {@link io.simdex.server.store.BucketTable} hands every call to
 * them; a store made before them, or with {@code -Dsimdex.packed.tables=false}, keeps pages:
 *
 * <p>A bucket is a chain of fixed-size pages ({@link io.simdex.server.store.PageLayout}, the one
 * place for page offsets): its first pages in a base map, the rest in an overflow map;
 * {@link io.simdex.server.store.BucketPages} is the one place that tells the two apart, and
 * {@link io.simdex.server.store.BucketTable} walks a chain without knowing. Every map grows by
 * adding files ({@link io.simdex.server.store.GrowingMap}): a new store's first files are small
 * and the next are sized for the expected load, so a store costs what its data needs
 * ({@link io.simdex.server.store.TableGeometry}).
 *
 * <p>Invariants:
 * <ul>
 *   <li>A probe allocates nothing once its {@link io.simdex.server.store.MatchBuffer} has grown,
 *       for buckets within their base pages, and reads pages in place at remembered addresses.</li>
 *   <li>Pages are written in place in crash-safe order: residues before the count that
 *       publishes them; a new page complete before page 0 counts it; a remove's hole filled
 *       before the last slot is dropped. A process killed at any instruction leaves every
 *       bucket readable (at worst one residue twice, which probes collapse).</li>
 *   <li>A bucket's writers hold its stripe's write lock and its probes the read lock; no other
 *       thread writes its pages. A packed store's compaction takes every stripe's write lock to
 *       freeze its delta and to switch files, so no probe reads a file it unmaps.</li>
 *   <li>A packed store's delta log is written record by record, each with a check written last,
 *       and its manifest with fsync ({@link io.simdex.core.io.DurableFiles}): a kill leaves the
 *       files the manifest names whole, and a compaction it cut short is finished when the store
 *       opens.</li>
 *   <li>A table's geometry ({@link io.simdex.server.store.TableGeometry}) is fixed when it is
 *       created and stored beside its files.</li>
 *   <li>A store not closed cleanly is recovered when opened ({@link io.simdex.server.store.MapFiles}).</li>
 *   <li>A file is made whole or not at all: one whose making failed is deleted, and a lack of
 *       room (a full disk, {@link io.simdex.server.store.DiskSpace}; the process's limits of
 *       memory maps and open files, {@link io.simdex.server.store.ProcessLimits}) is a
 *       {@link io.simdex.server.store.NoRoomException}: the request fails with a status the
 *       client may retry later, and the process neither hangs nor crashes.</li>
 * </ul>
 */
package io.simdex.server.store;
