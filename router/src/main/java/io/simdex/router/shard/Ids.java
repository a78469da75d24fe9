package io.simdex.router.shard;

/**
 * Some ids of one stored fingerprint (at most the limit asked for), and how many it has: a
 * fingerprint copied a million times answers with a page of ids and the count.
 */
public record Ids(String[] ids, long total) {
    public static final Ids NONE = new Ids(new String[0], 0);
}
