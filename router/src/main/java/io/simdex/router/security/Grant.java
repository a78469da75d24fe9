package io.simdex.router.security;

/**
 * One line of an auth file: {@code role} on one collection, or on every collection when
 * {@code collection} is {@link #ANY}. A URL job counts as the collection of the same name.
 */
public record Grant(Role role, String collection) {
    public static final String ANY = "*";

    /** True when this grant allows {@code needed} on {@code target} (a collection name, or ANY for server-wide calls). */
    boolean allows(Role needed, String target) {
        return role.covers(needed) && (ANY.equals(collection) || collection.equals(target));
    }
}
