package io.simdex.router;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * In the background: drops expired generations once a minute (the shortest default generation),
 * and expired URLs from seen-sets once an hour (a full pass over each set; lookups already treat
 * them as absent).
 */
public final class RetentionSweeper implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RetentionSweeper.class.getName());
    private static final long PERIOD_SECONDS = 60;
    private static final long URL_PERIOD_SECONDS = 3600;

    private final ScheduledExecutorService timer;

    private RetentionSweeper(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    public static RetentionSweeper start(SimdexService service) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "retention-sweeper");
            t.setDaemon(true);
            return t;
        });
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

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
