package io.simdex.server.store;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LockStripesTest {
    @Test
    void of_madeOnFirstUse_oncePerStripe_sameForEqualHashesModuloCount() {
        AtomicInteger made = new AtomicInteger();
        LockStripes<ReentrantLock> stripes = new LockStripes<>(16, () -> {
            made.incrementAndGet();
            return new ReentrantLock();
        });
        assertEquals(0, made.get(), "nothing made up front");
        ReentrantLock three = stripes.of(3);
        assertSame(three, stripes.of(3 + 16));
        assertSame(three, stripes.of(3 - 32));
        assertEquals(1, made.get());
        assertEquals(16, stripes.count());
    }

    @Test
    void of_threadsRacingForAMissingStripe_allGetTheOneThatWasPublished() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 200; round++) {
                LockStripes<ReentrantLock> stripes = new LockStripes<>(4, ReentrantLock::new);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<ReentrantLock>> got = IntStream.range(0, 8).mapToObj(t -> pool.submit(() -> {
                    start.await();
                    return stripes.of(1);
                })).toList();
                start.countDown();
                ReentrantLock first = got.get(0).get(10, TimeUnit.SECONDS);
                for (Future<ReentrantLock> f : got) {
                    assertSame(first, f.get(10, TimeUnit.SECONDS), "round " + round);
                }
                assertSame(first, stripes.of(1));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void new_countNotAPowerOfTwo_rejected() {
        assertThrows(IllegalArgumentException.class, () -> new LockStripes<>(1000, ReentrantLock::new));
    }
}
