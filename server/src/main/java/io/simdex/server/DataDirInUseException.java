package io.simdex.server;

/** A shard data directory another process holds ({@link DataDirLock}): a start that cannot go on, not a fault. */
public final class DataDirInUseException extends IllegalStateException {
    DataDirInUseException(String message) {
        super(message);
    }
}
