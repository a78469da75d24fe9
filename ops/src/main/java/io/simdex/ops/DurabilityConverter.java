package io.simdex.ops;

import io.simdex.server.Durability;
import picocli.CommandLine.ITypeConverter;

/** {@code --durability process|fsync}: picocli reports a bad value with {@link Durability#parse}'s message. */
final class DurabilityConverter implements ITypeConverter<Durability> {
    /** What the values mean. */
    static final String CHOICES = "When a write is acknowledged: process (once in the memory-mapped files; survives"
            + " kill -9, an OS crash or power loss can lose the last seconds) or fsync (once its write-ahead log record is"
            + " forced to disk; concurrent writes share one fsync)";

    @Override
    public Durability convert(String value) {
        return Durability.parse(value);
    }
}
