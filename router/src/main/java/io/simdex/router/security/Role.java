package io.simdex.router.security;

/**
 * What a token may do, each role including the one before it: {@link #READ} (Query, Lookup, Stats,
 * Fingerprint, ListCollections), {@link #WRITE} (also Insert, Dedup, Delete, BulkLoad,
 * CheckUrls, DropUrlJob), {@link #ADMIN} (everything: collections, HandlingTimes and the
 * cluster's Admin service).
 */
public enum Role {
    READ, WRITE, ADMIN;

    /** True when this role may do what {@code needed} may. */
    public boolean covers(Role needed) {
        return compareTo(needed) >= 0;
    }

    /** @throws IllegalArgumentException for anything but read, write or admin */
    static Role parse(String s) {
        return switch (s) {
            case "read" -> READ;
            case "write" -> WRITE;
            case "admin" -> ADMIN;
            default -> throw new IllegalArgumentException("role '" + s + "' is not read, write or admin");
        };
    }
}
