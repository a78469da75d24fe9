package io.simdex.client.cli;

import io.simdex.client.ClientOptions;
import io.simdex.client.SimdexClient;

/** Opens the client a command talks through; tests replace it to use an in-process channel. */
@FunctionalInterface
interface ClientFactory {
    /** gRPC to the target address, with the TLS and token the options carry. */
    ClientFactory GRPC = SimdexClient::connect;

    SimdexClient open(String target, ClientOptions options);
}
