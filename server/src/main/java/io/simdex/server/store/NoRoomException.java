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

    /**
     * The NoRoomException among {@code e}'s causes; else, if they say the disk had no room (a
     * small file such as the catalog or a table geometry, written outside the stores' files),
     * one that says so; else null.
     */
    public static NoRoomException in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof NoRoomException d) {
                return d;
            }
        }
        java.io.IOException full = DiskSpace.noSpace(e);
        if (full == null) {
            return null;
        }
        // What could not be done ("cannot write collections.json"), then the system's words.
        String top = e.getMessage();
        String said = top == null || e == full || top.equals(full.toString()) ? full.getMessage()
                : top.contains(full.getMessage()) ? top : top + ": " + full.getMessage();
        return new NoRoomException("the data disk is full: " + said);
    }
}
