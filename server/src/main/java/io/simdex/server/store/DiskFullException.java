package io.simdex.server.store;

/**
 * A write refused, or cut short, because the data disk has no room for a file a store must
 * make ({@link DiskSpace}). Not a fault of the server's: callers answer RESOURCE_EXHAUSTED.
 */
public final class DiskFullException extends RuntimeException {
    DiskFullException(String message) {
        super(message, null, false, false);
    }

    /** The DiskFullException among {@code e}'s causes, or null. */
    public static DiskFullException in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DiskFullException d) {
                return d;
            }
        }
        return null;
    }
}
