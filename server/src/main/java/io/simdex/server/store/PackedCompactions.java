package io.simdex.server.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The thread that compacts packed tables ({@link PackedBuckets#compact}), one at a time: a
 * compaction writes a whole run, and two at once would only share the disk. A table already
 * waiting or compacting is not queued again.
 */
final class PackedCompactions {
    private static final Logger LOG = LoggerFactory.getLogger(PackedCompactions.class);
    private static final ExecutorService THREAD = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "packed-compaction");
        t.setDaemon(true);
        return t;
    });
    private static final Set<PackedBuckets> QUEUED = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    private PackedCompactions() {
    }

    static void submit(PackedBuckets tables) {
        if (!QUEUED.add(tables)) {
            return;
        }
        THREAD.execute(() -> {
            try {
                // Again while due: writes made during one compaction (a bulk load's burst) can make the next due.
                do {
                    tables.compact();
                } while (tables.compactionDue());
            } catch (IllegalStateException closed) {
                // closed meanwhile: what the compaction wrote goes when the store next opens
            } catch (RuntimeException e) {
                LOG.error("compaction of packed tables failed; they keep their delta", e);
            } finally {
                QUEUED.remove(tables);
            }
        });
    }
}
