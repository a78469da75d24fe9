package io.simdex.client.cli;

import io.simdex.client.ClientOptions;
import io.simdex.client.SimdexAdmin;

/** Opens the admin client an {@code admin} subcommand talks through; tests replace it to use an in-process channel. */
@FunctionalInterface
interface AdminFactory {
    /** gRPC to the target address, with the TLS and token the options carry. */
    AdminFactory GRPC = SimdexAdmin::connect;

    SimdexAdmin open(String target, ClientOptions options);
}
