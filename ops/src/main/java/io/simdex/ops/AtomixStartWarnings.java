package io.simdex.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Drops the first "Failed to locate management group via bootstrap nodes" warning of a process.
 * A router (or any member outside the Raft group) asks its peers for the partition groups as
 * soon as its membership service starts, before the first heartbeats have shown it any peer, so
 * every normal start logged the warning once and found the groups a second later. Atomix asks
 * again after 1, 1, 2, 3 and then every 5 s: from the second attempt on the warning passes, as
 * then the seeds really have not answered.
 */
public final class AtomixStartWarnings extends TurboFilter {
    static final String LOGGER = "io.atomix.primitive.partition.impl.DefaultPartitionGroupMembershipService";
    static final String FIRST_ATTEMPT = "Failed to locate management group via bootstrap nodes";

    private final AtomicBoolean dropped = new AtomicBoolean();

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (format == null || level != Level.WARN || !LOGGER.equals(logger.getName()) || !format.startsWith(FIRST_ATTEMPT)) {
            return FilterReply.NEUTRAL;
        }
        return dropped.compareAndSet(false, true) ? FilterReply.DENY : FilterReply.NEUTRAL;
    }
}
