package io.simdex.router;

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
        timer.scheduleWithFixedDelay(() -> {
            try {
                service.prepareGenerations(evenIfUnused);
            } catch (RuntimeException e) {
                // A shard may be down or not yet up; the next round retries, and a write creates what it needs.
                LOG.log(Level.WARNING, "preparing generations failed: " + e);
            }
        }, 0, PERIOD_SECONDS, TimeUnit.SECONDS);
        timer.scheduleWithFixedDelay(() -> {
            try {
                service.sweepExpired();
            } catch (RuntimeException e) {
                // A shard may be down; the next sweep retries. Queries ignore expired generations meanwhile.
                LOG.log(Level.WARNING, "retention sweep failed: " + e);
            }
        }, PERIOD_SECONDS, PERIOD_SECONDS, TimeUnit.SECONDS);
        timer.scheduleWithFixedDelay(() -> {
            try {
                service.sweepExpiredUrls();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "URL sweep failed: " + e);
            }
        }, URL_PERIOD_SECONDS, URL_PERIOD_SECONDS, TimeUnit.SECONDS);
        return new RetentionSweeper(timer);
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
