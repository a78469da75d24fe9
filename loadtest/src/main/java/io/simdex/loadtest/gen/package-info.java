/**
 * Test data. {@link io.simdex.loadtest.gen.Fingerprints} makes stored fingerprint i of a seed a
 * pure function of (seed, i) and plants probes at exact distances from them, so `gen`'s files,
 * `load` and `run` agree on the stored set without sharing state. {@code GenCommand} writes JSONL
 * ({@code stored.jsonl}, {@code probes.jsonl}, {@code texts.jsonl}) and ghz call-data files
 * (arrays of requests in the protobuf JSON mapping, fixed64 as decimal strings).
 */
package io.simdex.loadtest.gen;
