package io.simdex.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

import java.util.List;

/**
 * Drops the two warnings Chronicle Map logs for every file it recovers ("Recovery operation
 * needs exclusive access ...", "Do not use recovery as a standard way ..."): a store is
 * recovered only after its process was killed, with the data directory's lock held, and
 * {@code MapFiles} says so once for the store instead of twice a file. Every other message of
 * Chronicle Map passes, the builder's other recovery warnings (a damaged header) among them.
 */
public final class ChronicleRecoveryWarnings extends TurboFilter {
    static final String LOGGER = "net.openhft.chronicle.map.ChronicleMapBuilder";
    private static final List<String> DROPPED = List.of(
            "Recovery operation needs exclusive access to the ChronicleMap",
            "Do not use recovery as a standard way of opening a ChronicleMap");

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (format == null || level != Level.WARN || !LOGGER.equals(logger.getName())) {
            return FilterReply.NEUTRAL;
        }
        for (String dropped : DROPPED) {
            if (format.startsWith(dropped)) {
                return FilterReply.DENY;
            }
        }
        return FilterReply.NEUTRAL;
    }
}
