package io.simdex.router.api;

import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * In the background: creates the stores of current and upcoming generations of collections in
 * use at start and then once a minute, before writes need them
 * ({@link SimdexService#prepareGenerations}); drops
 * expired generations once a minute (the shortest default generation); and drops expired URLs
 * from seen-sets once an hour (a full pass over each set; lookups already treat them as absent).
 */
public final class RetentionSweeper implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RetentionSweeper.class.getName());
    private static final long PERIOD_SECONDS = 60;
    private static final long URL_PERIOD_SECONDS = 3600;

    private final ScheduledExecutorService timer;

    private RetentionSweeper(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /**
     * Starts the tasks for {@code service}; the collections in {@code evenIfUnused} get their
     * stores before any write (the embedded default's own collection), others once in use.
     */
    public static RetentionSweeper start(SimdexService service, Set<String> evenIfUnused) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "retention-sweeper");
            t.setDaemon(true);
            return t;
        });
        // A shard may be down or not yet up: each task logs and the next round retries. Meanwhile
        // a write creates the store it needs, and queries ignore expired generations.
        every(timer, 0, PERIOD_SECONDS, "preparing generations", () -> service.prepareGenerations(evenIfUnused));
        every(timer, PERIOD_SECONDS, PERIOD_SECONDS, "retention sweep", service::sweepExpired);
        every(timer, URL_PERIOD_SECONDS, URL_PERIOD_SECONDS, "URL sweep", service::sweepExpiredUrls);
        return new RetentionSweeper(timer);
    }

    private static void every(ScheduledExecutorService timer, long initialSeconds, long periodSeconds, String what, Runnable task) {
        timer.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, what + " failed: " + e);
            }
        }, initialSeconds, periodSeconds, TimeUnit.SECONDS);
    }

    /**
     * Stops, letting a task under way finish first: interrupting a thread that is creating a
     * store would close its file channels halfway (Java closes a channel on interrupt).
     */
    @Override
    public void close() {
        timer.shutdown();
        try {
            if (!timer.awaitTermination(2, TimeUnit.MINUTES)) {
                LOG.warning("a retention task is still running after 2 minutes; stopping without it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
