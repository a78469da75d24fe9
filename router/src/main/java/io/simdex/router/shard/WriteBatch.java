package io.simdex.router.shard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The writes of one phase of a request, sent as one call per node instead of one per replica
 * set: with R replicas a node serves partitions of several replica sets, and each set sends it
 * its own share of the phase. While a batch is open on a thread, a {@link RemoteShardClient}
 * asked there to bind, attach, add to buckets or put texts records the call here and answers a
 * future; {@link #close} sends each node's recorded calls of one kind (same collection and
 * generation) as one call and answers each caller its own slice.
 *
 * <h2>Why it changes nothing else</h2>
 * A node keeps one store per collection and generation whatever the partition, and the calls
 * merged have disjoint keys (each id, fingerprint and bucket belongs to one partition, so to one
 * replica set), so the merged call stores what the separate ones would. Each caller's future
 * fails or succeeds with the node's call, so a replica set counts its quorum and marks a
 * replica behind exactly as before. Within one set's share the order of its parts is kept
 * (fresh bucket adds before checked ones).
 *
 * <p>A node's binds and attaches of one store go together as one {@link ShardClient#writeIds}
 * call, each kind answered from it as from its own call: an insert's ids phase is one call per
 * node.
 *
 * <p>Counts ({@code bucketAddMany}, {@code putTexts}) are not kept per part: the node's total
 * goes to the first caller and 0 to the others, so a sum over the phase is right.
 *
 * <p>Not thread-safe: a batch belongs to the thread that opened it.
 */
public final class WriteBatch implements AutoCloseable {
    private static final ThreadLocal<WriteBatch> CURRENT = new ThreadLocal<>();

    private final WriteBatch outer;
    private final Map<Key, Merge<?>> merges = new LinkedHashMap<>();

    private WriteBatch(WriteBatch outer) {
        this.outer = outer;
    }

    /** Opens a batch on this thread, until {@link #close}. */
    public static WriteBatch open() {
        WriteBatch b = new WriteBatch(CURRENT.get());
        CURRENT.set(b);
        return b;
    }

    /** The batch open on this thread, or null. */
    static WriteBatch current() {
        return CURRENT.get();
    }

    /** Sends the recorded calls, one per node and kind (binds with attaches). Always sends, even when the phase failed half way: every caller waits for an answer. */
    @Override
    @SuppressWarnings("unchecked")
    public void close() {
        CURRENT.remove(); // the merged calls go straight to the nodes
        try {
            for (Map.Entry<Key, Merge<?>> e : merges.entrySet()) {
                Key k = e.getKey();
                if (k.kind == Kind.BIND && merges.get(k.as(Kind.ATTACH)) instanceof IdMerge<?> attach) {
                    sendIds(k, (IdMerge<Previous>) e.getValue(), (IdMerge<boolean[]>) attach);
                } else if (k.kind != Kind.ATTACH || !merges.containsKey(k.as(Kind.BIND))) {
                    e.getValue().send();
                }
            }
        } finally {
            if (outer != null) {
                CURRENT.set(outer);
            }
        }
    }

    private enum Kind { BIND, ATTACH, BUCKETS, TEXTS }

    /** Which calls merge: one node's (identity) of one kind on one store. */
    private record Key(ShardClient node, Kind kind, String collection, long generation) {
        Key as(Kind other) {
            return new Key(node, other, collection, generation);
        }
    }

    /** One node's binds and attaches on one store as one call; the pairs go once when both kinds hold the same ones (the node owns both keys of each). */
    private static void sendIds(Key k, IdMerge<Previous> bind, IdMerge<boolean[]> attach) {
        String[] bindIds = bind.allIds();
        long[] bindFps = bind.allFps();
        String[] attachIds = attach.allIds();
        long[] attachFps = attach.allFps();
        if (Arrays.equals(bindIds, attachIds) && Arrays.equals(bindFps, attachFps)) {
            attachIds = bindIds;
            attachFps = bindFps;
        }
        IdWrites written;
        try {
            written = k.node().writeIds(k.collection(), k.generation(), bindIds, bindFps, attachIds, attachFps);
        } catch (RuntimeException e) {
            written = new IdWrites(CompletableFuture.failedFuture(e), CompletableFuture.failedFuture(e));
        }
        bind.deliver(written.bound());
        attach.deliver(written.attached());
    }

    @SuppressWarnings("unchecked")
    private <M extends Merge<?>> M merge(ShardClient node, Kind kind, String c, long g, Supplier<M> fresh) {
        return (M) merges.computeIfAbsent(new Key(node, kind, c, g), k -> fresh.get());
    }

    CompletableFuture<Previous> bindIds(ShardClient node, String c, long g, String[] ids, long[] fps) {
        return this.<IdMerge<Previous>>merge(node, Kind.BIND, c, g, () -> new IdMerge<>(
                (allIds, allFps) -> node.bindIds(c, g, allIds, allFps), WriteBatch::slice)).add(ids, fps);
    }

    CompletableFuture<boolean[]> attachIds(ShardClient node, String c, long g, long[] fps, String[] ids) {
        return this.<IdMerge<boolean[]>>merge(node, Kind.ATTACH, c, g, () -> new IdMerge<>(
                (allIds, allFps) -> node.attachIds(c, g, allFps, allIds), WriteBatch::slice)).add(ids, fps);
    }

    CompletableFuture<Integer> bucketAddMany(ShardClient node, String c, long g, int[] tables, long[][] fps, boolean[] fresh) {
        return this.<BucketMerge>merge(node, Kind.BUCKETS, c, g, () -> new BucketMerge(node, c, g)).add(tables, fps, fresh);
    }

    CompletableFuture<Integer> putTexts(ShardClient node, String c, long g, String[] ids, String[] texts) {
        return this.<TextMerge>merge(node, Kind.TEXTS, c, g, () -> new TextMerge(node, c, g)).add(ids, texts);
    }

    /** Callers' shares of one merged call, each with its future. */
    private abstract static class Merge<T> {
        final List<CompletableFuture<T>> callers = new ArrayList<>(2);
        /** Where each caller's share starts in the merged call, and its end last. */
        final List<Integer> offsets = new ArrayList<>(List.of(0));

        CompletableFuture<T> added(int size) {
            offsets.add(offsets.get(offsets.size() - 1) + size);
            CompletableFuture<T> f = new CompletableFuture<>();
            callers.add(f);
            return f;
        }

        final void send() {
            CompletableFuture<T> merged;
            try {
                merged = call();
            } catch (RuntimeException e) {
                merged = CompletableFuture.failedFuture(e);
            }
            deliver(merged);
        }

        /** Answers each caller its share of the merged call's answer, or its failure. */
        final void deliver(CompletableFuture<T> merged) {
            merged.whenComplete((answer, failure) -> {
                for (int k = 0; k < callers.size(); k++) {
                    if (failure != null) {
                        callers.get(k).completeExceptionally(failure);
                    } else {
                        callers.get(k).complete(callers.size() == 1 ? answer : share(answer, k, offsets.get(k), offsets.get(k + 1)));
                    }
                }
            });
        }

        abstract CompletableFuture<T> call();

        /** Caller k's answer: items [from, to) of the merged answer. */
        abstract T share(T answer, int k, int from, int to);
    }

    /** Calls over (id, fingerprint) pairs answering per item. */
    private static final class IdMerge<T> extends Merge<T> {
        final BiFunction<String[], long[], CompletableFuture<T>> send;
        final Slicer<T> slicer;
        final List<String[]> ids = new ArrayList<>(2);
        final List<long[]> fps = new ArrayList<>(2);

        IdMerge(BiFunction<String[], long[], CompletableFuture<T>> send, Slicer<T> slicer) {
            this.send = send;
            this.slicer = slicer;
        }

        CompletableFuture<T> add(String[] moreIds, long[] moreFps) {
            ids.add(moreIds);
            fps.add(moreFps);
            return added(moreIds.length);
        }

        @Override
        CompletableFuture<T> call() {
            return send.apply(allIds(), allFps());
        }

        String[] allIds() {
            return ids.size() == 1 ? ids.get(0) : concat(ids);
        }

        long[] allFps() {
            if (fps.size() == 1) {
                return fps.get(0);
            }
            long[] all = new long[offsets.get(offsets.size() - 1)];
            for (int k = 0; k < fps.size(); k++) {
                System.arraycopy(fps.get(k), 0, all, offsets.get(k), fps.get(k).length);
            }
            return all;
        }

        @Override
        T share(T answer, int k, int from, int to) {
            return slicer.slice(answer, from, to);
        }
    }

    @FunctionalInterface
    private interface Slicer<T> {
        T slice(T answer, int from, int to);
    }

    private static Previous slice(Previous p, int from, int to) {
        return new Previous(Arrays.copyOfRange(p.present(), from, to), Arrays.copyOfRange(p.previous(), from, to),
                Arrays.copyOfRange(p.generation(), from, to));
    }

    private static boolean[] slice(boolean[] flags, int from, int to) {
        return Arrays.copyOfRange(flags, from, to);
    }

    /** Calls answering a count, not kept per part: the node's total goes to the first caller, 0 to the others. */
    private abstract static class CountMerge extends Merge<Integer> {
        @Override
        final Integer share(Integer total, int k, int from, int to) {
            return k == 0 ? total : 0;
        }
    }

    /** Bucket additions: parts concatenated, each caller's in its order. */
    private static final class BucketMerge extends CountMerge {
        final ShardClient node;
        final String c;
        final long g;
        final List<int[]> tables = new ArrayList<>(2);
        final List<long[][]> fps = new ArrayList<>(2);
        final List<boolean[]> fresh = new ArrayList<>(2);

        BucketMerge(ShardClient node, String c, long g) {
            this.node = node;
            this.c = c;
            this.g = g;
        }

        CompletableFuture<Integer> add(int[] moreTables, long[][] moreFps, boolean[] moreFresh) {
            tables.add(moreTables);
            fps.add(moreFps);
            fresh.add(moreFresh);
            return added(moreTables.length);
        }

        @Override
        CompletableFuture<Integer> call() {
            if (tables.size() == 1) {
                return node.bucketAddMany(c, g, tables.get(0), fps.get(0), fresh.get(0));
            }
            int n = offsets.get(offsets.size() - 1);
            int[] allTables = new int[n];
            long[][] allFps = new long[n][];
            boolean[] allFresh = new boolean[n];
            for (int k = 0; k < tables.size(); k++) {
                int at = offsets.get(k);
                System.arraycopy(tables.get(k), 0, allTables, at, tables.get(k).length);
                System.arraycopy(fps.get(k), 0, allFps, at, fps.get(k).length);
                System.arraycopy(fresh.get(k), 0, allFresh, at, fresh.get(k).length);
            }
            return node.bucketAddMany(c, g, allTables, allFps, allFresh);
        }
    }

    /** Short texts by id. */
    private static final class TextMerge extends CountMerge {
        final ShardClient node;
        final String c;
        final long g;
        final List<String[]> ids = new ArrayList<>(2);
        final List<String[]> texts = new ArrayList<>(2);

        TextMerge(ShardClient node, String c, long g) {
            this.node = node;
            this.c = c;
            this.g = g;
        }

        CompletableFuture<Integer> add(String[] moreIds, String[] moreTexts) {
            ids.add(moreIds);
            texts.add(moreTexts);
            return added(moreIds.length);
        }

        @Override
        CompletableFuture<Integer> call() {
            return node.putTexts(c, g, concat(ids), concat(texts));
        }
    }

    private static String[] concat(List<String[]> parts) {
        return parts.size() == 1 ? parts.get(0) : parts.stream().flatMap(Arrays::stream).toArray(String[]::new);
    }
}
