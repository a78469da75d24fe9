package io.simdex.router.shard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import java.util.function.LongToIntFunction;
import java.util.stream.IntStream;

/**
 * Splits a batch by owning shard and waits for the shards' answers: the one place that turns
 * "n items" into "one call per shard, in parallel".
 */
public final class Fanout {
    private final List<CompletableFuture<?>> pending = new ArrayList<>();

    private Fanout() {
    }

    public static Fanout start() {
        return new Fanout();
    }

    private static final int[] NONE = {};
    private static final int[] ONLY_FIRST = {0};

    /**
     * Indexes 0..n-1 grouped by owner: {@code result[shard]} lists the items that shard owns, in
     * order. The group arrays may be shared between calls: read them, never write them. A single
     * item (every unary call) allocates only the outer array.
     */
    public static int[][] group(int n, int shards, IntUnaryOperator owner) {
        if (shards == 1) {
            // One replica set owns every partition (a 1-node cluster, R = nodes): owners are
            // not asked, which saves hashing each id of a bulk load.
            return new int[][]{n == 1 ? ONLY_FIRST : n == 0 ? NONE : IntStream.range(0, n).toArray()};
        }
        if (n <= 1) {
            int[][] groups = new int[shards][];
            Arrays.fill(groups, NONE);
            if (n == 1) {
                groups[owner.applyAsInt(0)] = ONLY_FIRST;
            }
            return groups;
        }
        int[] own = new int[n];
        int[] counts = new int[shards];
        for (int i = 0; i < n; i++) {
            own[i] = owner.applyAsInt(i);
            counts[own[i]]++;
        }
        int[][] groups = new int[shards][];
        for (int s = 0; s < shards; s++) {
            groups[s] = counts[s] == 0 ? NONE : new int[counts[s]];
            counts[s] = 0;
        }
        for (int i = 0; i < n; i++) {
            groups[own[i]][counts[own[i]]++] = i;
        }
        return groups;
    }

    /**
     * {@code values}, whose equal keys stand together (each key one run), split by owner:
     * {@code result[shard]} holds the runs that shard owns, in order (an empty array for none).
     * The owner is asked once per run, not per value, and runs move by array copies; when one
     * shard owns every run it gets {@code values} itself. Read the arrays, never write them.
     */
    public static long[][] splitRuns(long[] values, LongToIntFunction key, IntUnaryOperator ownerOfKey, int shards) {
        int n = values.length;
        long[][] out = new long[shards][];
        Arrays.fill(out, NO_VALUES);
        if (n == 0) {
            return out;
        }
        if (shards == 1) {
            out[0] = values;
            return out;
        }
        int[] counts = new int[shards];
        for (int i = 0; i < n; ) {
            int k = key.applyAsInt(values[i]);
            int end = runEnd(values, i, k, key);
            counts[ownerOfKey.applyAsInt(k)] += end - i;
            i = end;
        }
        for (int s = 0; s < shards; s++) {
            if (counts[s] == n) {
                out[s] = values;
                return out;
            }
            if (counts[s] > 0) {
                out[s] = new long[counts[s]];
                counts[s] = 0;
            }
        }
        for (int i = 0; i < n; ) {
            int k = key.applyAsInt(values[i]);
            int end = runEnd(values, i, k, key);
            int s = ownerOfKey.applyAsInt(k);
            System.arraycopy(values, i, out[s], counts[s], end - i);
            counts[s] += end - i;
            i = end;
        }
        return out;
    }

    private static final long[] NO_VALUES = {};

    /** The end of the run of {@code key} that starts at {@code from}. */
    private static int runEnd(long[] values, int from, int key, LongToIntFunction keyOf) {
        int end = from + 1;
        while (end < values.length && keyOf.applyAsInt(values[end]) == key) {
            end++;
        }
        return end;
    }

    public static long[] pick(long[] values, int[] indexes) {
        long[] out = new long[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            out[i] = values[indexes[i]];
        }
        return out;
    }

    /** {@code values} at {@code indexes}, in an array of the same component type. */
    public static <T> T[] pick(T[] values, int[] indexes) {
        T[] out = Arrays.copyOf(values, indexes.length);
        for (int i = 0; i < indexes.length; i++) {
            out[i] = values[indexes[i]];
        }
        return out;
    }

    public static byte[][] pick(byte[][] values, int[] indexes) {
        byte[][] out = new byte[indexes.length][];
        for (int i = 0; i < indexes.length; i++) {
            out[i] = values[indexes[i]];
        }
        return out;
    }

    public static long[][] pick(long[][] values, int[] indexes) {
        long[][] out = new long[indexes.length][];
        for (int i = 0; i < indexes.length; i++) {
            out[i] = values[indexes[i]];
        }
        return out;
    }

    public static boolean[] pick(boolean[] values, int[] indexes) {
        boolean[] out = new boolean[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            out[i] = values[indexes[i]];
        }
        return out;
    }

    public static int[] pick(int[] values, int[] indexes) {
        int[] out = new int[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            out[i] = values[indexes[i]];
        }
        return out;
    }

    /**
     * Sends items 0..n-1 to their owners among {@code shards}: one call per shard that owns any,
     * given the indexes of its items in order ({@link #group}); {@code onResult} gets those
     * indexes and the shard's answer.
     */
    public <T> void toOwners(ShardClient[] shards, int n, IntUnaryOperator owner,
            BiFunction<ShardClient, int[], CompletableFuture<T>> call, BiConsumer<int[], ? super T> onResult) {
        int[][] groups = group(n, shards.length, owner);
        for (int s = 0; s < shards.length; s++) {
            int[] group = groups[s];
            if (group.length > 0) {
                add(call.apply(shards[s], group), answer -> onResult.accept(group, answer));
            }
        }
    }

    /** As {@link #toOwners(ShardClient[], int, IntUnaryOperator, BiFunction, BiConsumer)}, for calls whose answer only says they are done. */
    public void toOwners(ShardClient[] shards, int n, IntUnaryOperator owner, BiFunction<ShardClient, int[], CompletableFuture<?>> call) {
        int[][] groups = group(n, shards.length, owner);
        for (int s = 0; s < shards.length; s++) {
            if (groups[s].length > 0) {
                add(call.apply(shards[s], groups[s]));
            }
        }
    }

    /** A call carrying several parts' items to one shard, {@code shards[owner]}: {@code parts[k]}'s items are {@code items[k]}. */
    @FunctionalInterface
    public interface PartsCall<T> {
        CompletableFuture<T> apply(int owner, ShardClient shard, int[] parts, int[][] items);
    }

    /** What to do with a {@link PartsCall}'s answer, given the same parts and items. */
    @FunctionalInterface
    public interface PartsResult<T> {
        void accept(int[] parts, int[][] items, T answer);
    }

    /**
     * Sends the items of several parts (a table each, say) to their owners in one call per shard
     * that owns any item of any part, not one per part and shard. {@code groups[part]} is that
     * part's {@link #group}ing of its items by shard.
     */
    public <T> void toOwnersByPart(ShardClient[] shards, int[][][] groups, PartsCall<T> call, PartsResult<? super T> onResult) {
        for (int s = 0; s < shards.length; s++) {
            int n = 0;
            for (int[][] part : groups) {
                n += part[s].length > 0 ? 1 : 0;
            }
            if (n == 0) {
                continue;
            }
            int[] parts = new int[n];
            int[][] items = new int[n][];
            for (int p = 0, k = 0; p < groups.length; p++) {
                if (groups[p][s].length > 0) {
                    parts[k] = p;
                    items[k++] = groups[p][s];
                }
            }
            add(call.apply(s, shards[s], parts, items), answer -> onResult.accept(parts, items, answer));
        }
    }

    /** Calls every one of {@code nodes} once; {@code onResult} gets each answer, one at a time. */
    public <T> void toEach(ShardClient[] nodes, Function<ShardClient, CompletableFuture<T>> call, Consumer<? super T> onResult) {
        for (ShardClient node : nodes) {
            add(call.apply(node), answer -> {
                synchronized (this) {
                    onResult.accept(answer);
                }
            });
        }
    }

    public <T> CompletableFuture<T> add(CompletableFuture<T> call) {
        pending.add(call);
        return call;
    }

    /**
     * Adds a call and what to do with its answer. {@link #await} waits for {@code onResult} to
     * have run, not just for the call: with a remote shard the call completes on a gRPC thread
     * and its continuations may run after other waiters wake.
     */
    public <T> void add(CompletableFuture<T> call, Consumer<? super T> onResult) {
        if (call.isDone() && !call.isCompletedExceptionally()) {
            // A local shard answers in the caller's thread: take its answer now, with no
            // continuation to allocate and nothing to wait for (a failure still waits for await).
            onResult.accept(call.join());
            return;
        }
        pending.add(call.thenAccept(onResult));
    }

    /** Waits for one call; rethrows its failure's cause (a gRPC status from a remote shard). */
    public static <T> T join(CompletableFuture<T> call) {
        try {
            return call.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /**
     * Every call so far, done: what {@link #await} waits for, for a caller that must not block.
     * It fails as the first call that fails, wrapped in a CompletionException.
     */
    public CompletableFuture<Void> done() {
        CompletableFuture<Void> all = pending.isEmpty() ? CompletableFuture.completedFuture(null)
                : CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]));
        pending.clear();
        return all;
    }

    /** The failure a {@link #done} or a joined call failed with, as the shard gave it (a gRPC status from a remote shard). */
    public static RuntimeException cause(Throwable failure) {
        Throwable t = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return t instanceof RuntimeException r ? r : new CompletionException(t);
    }

    /** Waits for every call; rethrows the first failure's cause (a gRPC status from a remote shard). */
    public void await() {
        if (pending.isEmpty()) {
            return;
        }
        try {
            CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        } finally {
            pending.clear();
        }
    }
}
