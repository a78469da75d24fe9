/**
 * The public gRPC server and how it spends its threads: which calls run on the network thread
 * that read them, how connections are read, the handler pool, and per-method handling times.
 *
 * <p>Invariants. Nothing here knows the index: the server hosts whatever services it is given.
 * A call handled inline on a network thread must not block (small fingerprint queries over
 * shards in this JVM only); everything else goes to the handler threads.
 */
package io.simdex.router.transport;
