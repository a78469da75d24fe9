package io.simdex.server;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * When a shard node acknowledges a write. Every node of a server has the same setting.
 *
 * <ul>
 *   <li>{@link #PROCESS} (default): once it is in the memory-mapped Chronicle Map files. The
 *       write survives the process being killed (the kernel holds the dirty pages and writes
 *       them back); an OS crash or power loss can lose writes from the last seconds.
 *   <li>{@link #FSYNC}: once its record in the node's write-ahead log is on stable storage
 *       (FileChannel.force). Concurrent writes share one force (group commit); a node that
 *       stopped uncleanly replays the log on open. See {@link io.simdex.server.wal}.
 * </ul>
 */
public enum Durability {
    PROCESS,
    FSYNC;

    /** The setting named {@code value} ("process" or "fsync", any case). */
    public static Durability parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (Durability d : values()) {
            if (d.label().equals(v)) {
                return d;
            }
        }
        throw new IllegalArgumentException("durability must be one of " + Arrays.stream(values()).map(Durability::label)
                .collect(Collectors.joining(", ")) + ", was \"" + value + "\"");
    }

    /** The name in settings and flags: "process" or "fsync". */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
