/**
 * Typed Java client for the {@code simdex.v1.Simdex} gRPC service, and for {@code simdex.v1.Admin}.
 *
 * <p>{@link io.simdex.client.SimdexClient} hides the generated stubs behind plain records
 * ({@link io.simdex.client.Doc}, {@link io.simdex.client.Probe}, {@link io.simdex.client.Match},
 * ...), splits lists larger than the server's batch limit into several calls, and applies a
 * deadline to every call. {@link io.simdex.client.BulkLoader} streams documents with flow
 * control so that a load of millions never holds more than a batch or two in memory.
 * {@link io.simdex.client.SimdexAdmin} is the client of a cluster's {@code simdex.v1.Admin}
 * service (members, placement, adding and draining nodes); it returns the proto messages.
 *
 * <p>Naming: records mirror the proto messages they wrap, but carry distinct names where the
 * proto name would clash in the same file ({@code DedupDecision} for {@code DedupResult},
 * {@code ProbeMatches} for {@code QueryResult}); {@code Match}, {@code Probe} and
 * {@code CollectionInfo} share their proto names and the mapping code spells the proto types
 * out in full. Fingerprints are unsigned 64-bit values held in a {@code long}; use
 * {@link io.simdex.client.Fingerprints} to read and print them.
 *
 * <p>Errors: RPC failures surface as {@link io.grpc.StatusRuntimeException} with the server's
 * canonical status (see {@code simdex.proto} for which codes are safe to retry); bad arguments
 * to this client are {@link java.lang.IllegalArgumentException}.
 */
package io.simdex.client;
