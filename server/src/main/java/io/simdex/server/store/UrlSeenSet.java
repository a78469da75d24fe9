package io.simdex.server.store;

import net.openhft.chronicle.map.ChronicleMap;

import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * One crawl job's set of seen URLs, as the seeds keep in a Redis hash per job: URL hash ->
 * expiry (seconds since the epoch), in persisted Chronicle Maps ({@code seen-G.cm}).
 *
 * <p>Keys are 128-bit hashes of the URL: 16 bytes whatever the URL's length, and with 64 bits
 * a billion URLs would collide somewhere with a few percent probability, silently skipping a
 * page. An expired entry counts as absent and is overwritten; {@link #sweep} reclaims the rest.
 */
public final class UrlSeenSet implements Closeable {
    private static final int KEY_BYTES = 16;

    private final Path dir;
    private final GrowingMap<byte[], Long> seen;

    public UrlSeenSet(Path dir, long expectedUrls) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        boolean clean = MapFiles.takeCleanMarker(dir, !Files.exists(dir.resolve("seen-0.cm")));
        seen = new GrowingMap<>(dir, "seen", Math.max(1024, expectedUrls), n -> ChronicleMap.of(byte[].class, Long.class)
                .entries(n).constantKeySizeBySample(new byte[KEY_BYTES]).maxBloatFactor(2.0), clean);
    }

    /**
     * Adds the URL hash with expiry {@code expiresAt}; true when it was absent or expired at
     * {@code now}. A URL seen again keeps the later of its two expiries. Atomic per URL: of two
     * concurrent calls for one URL exactly one gets true.
     */
    public boolean checkAndAdd(byte[] urlHash, long now, long expiresAt) {
        boolean[] fresh = {false};
        seen.compute(urlHash, (k, old) -> {
            if (old == null || old <= now) {
                fresh[0] = true;
                return expiresAt;
            }
            return Math.max(old, expiresAt);
        });
        return fresh[0];
    }

    /** Adds the URL hash, keeping the later expiry if present: a copy from another node. */
    public void addKeepingLater(byte[] urlHash, long expiresAt) {
        seen.compute(urlHash, (k, old) -> old == null ? expiresAt : Math.max(old, expiresAt));
    }

    /** Calls {@code action} with every entry (hash, expiry), expired ones included. */
    public void forEach(BiConsumer<byte[], Long> action) {
        seen.forEach(action);
    }

    /** Removes every URL hash {@code drop} accepts; returns how many. */
    public long removeIf(Predicate<byte[]> drop) {
        return seen.removeIf((k, expiresAt) -> drop.test(k));
    }

    /** True when the URL hash is present and not expired at {@code now}; changes nothing. */
    public boolean contains(byte[] urlHash, long now) {
        Long expiresAt = seen.get(urlHash);
        return expiresAt != null && expiresAt > now;
    }

    /** Removes entries expired at {@code now}; returns how many. */
    public long sweep(long now) {
        return seen.removeIf((k, expiresAt) -> expiresAt <= now);
    }

    public long size() {
        return seen.size();
    }

    @Override
    public void close() {
        seen.close();
        MapFiles.putCleanMarker(dir);
    }
}
