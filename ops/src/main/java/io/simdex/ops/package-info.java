/**
 * The launcher {@code simdex.jar}: one entry point ({@link io.simdex.ops.Main}) for the server
 * commands ({@code embedded}, {@code shard}, {@code router}, {@code node}) and, for every other
 * command, the client CLI.
 *
 * <p>Invariants. Chronicle's analytics are switched off before any Chronicle class loads, so a
 * server never sends usage data over the network. A server command binds its port and logs
 * {@code listening on HOST:PORT} only once it serves, which scripts and the process tests wait
 * for; SIGTERM stops taking calls, finishes those in flight and closes the maps cleanly.
 */
package io.simdex.ops;
