package io.simdex.server.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;

/**
 * A fixed number of lock stripes, each made when first asked for: a store holding a few
 * documents keeps a few locks. Made all at once, the stripes of a store's maps and tables were
 * 2.8 MB of heap per one-document collection of the embedded default (9,500 ReentrantLocks and
 * 4,096 StampedLocks a shard). Two threads asking for a missing stripe at once get the same
 * one: the first to publish it wins.
 */
final class LockStripes<T> {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    private final Object[] stripes;
    private final Supplier<T> make;

    /** {@code count} stripes (a power of two), made by {@code make}. */
    LockStripes(int count, Supplier<T> make) {
        if (Integer.bitCount(count) != 1) {
            throw new IllegalArgumentException("stripes must be a power of two, was " + count);
        }
        this.stripes = new Object[count];
        this.make = make;
    }

    /** Stripe {@code hash & (count - 1)}. */
    @SuppressWarnings("unchecked")
    T of(int hash) {
        int i = hash & (stripes.length - 1);
        Object stripe = SLOT.getAcquire(stripes, i);
        if (stripe == null) {
            SLOT.compareAndSet(stripes, i, null, make.get());
            stripe = SLOT.getAcquire(stripes, i);
        }
        return (T) stripe;
    }

    int count() {
        return stripes.length;
    }
}
