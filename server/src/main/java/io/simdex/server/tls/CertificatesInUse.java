package io.simdex.server.tls;

import java.time.Instant;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The certificates this process presents, by use, and when each expires: the metrics endpoint
 * exports them ({@code simdex_tls_certificate_expiration_timestamp_seconds{use}}), so that an
 * alert fires before a certificate expires that was not renewed, or was renewed on disk but not
 * taken (the membership links read theirs at start only). Process-wide, as a process has one
 * certificate of each use: the last one registered for a use counts.
 */
public final class CertificatesInUse {
    /** The public gRPC port's certificate (embedded server, router). */
    public static final String PUBLIC = "public";
    /** The certificate of the cluster's gRPC links between routers and nodes. */
    public static final String PEER = "peer";
    /** The certificate of the cluster's membership (Atomix) links. */
    public static final String MEMBERSHIP = "membership";

    private static final Map<String, Supplier<Instant>> IN_USE = new ConcurrentHashMap<>();

    private CertificatesInUse() {
    }

    /** From now on {@code use}'s certificate expires when {@code notAfter} says, asked at each scrape. */
    public static void track(String use, Supplier<Instant> notAfter) {
        IN_USE.put(use, notAfter);
    }

    /** When each use's certificate expires, by use. */
    public static SortedMap<String, Instant> expirations() {
        SortedMap<String, Instant> out = new TreeMap<>();
        IN_USE.forEach((use, notAfter) -> out.put(use, notAfter.get()));
        return out;
    }
}
