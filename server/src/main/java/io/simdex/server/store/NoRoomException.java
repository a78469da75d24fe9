package io.simdex.server.store;

/**
 * A write refused, or cut short, because a store cannot have the files it needs: the data disk
 * has no room for one ({@link DiskSpace}), or the process is at its limit of memory maps or
 * open files ({@link ProcessLimits}). Not a fault of the server's: callers answer
 * RESOURCE_EXHAUSTED (a cluster node UNAVAILABLE).
 */
public final class NoRoomException extends RuntimeException {
    NoRoomException(String message) {
        super(message, null, false, false);
    }

    /** The NoRoomException among {@code e}'s causes, or null. */
    public static NoRoomException in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof NoRoomException d) {
                return d;
            }
        }
        return null;
    }
}
