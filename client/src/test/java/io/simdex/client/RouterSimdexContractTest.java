package io.simdex.client;

import io.grpc.BindableService;
import io.simdex.router.EmbeddedSimdex;

import java.nio.file.Path;

/** {@link SimdexContract} against the real router service over an embedded two-shard store (its own port unused). */
class RouterSimdexContractTest extends SimdexContract {
    private EmbeddedSimdex embedded;

    @Override
    BindableService start(Path dir) {
        embedded = EmbeddedSimdex.start(dir, 2, "127.0.0.1", 0, 100_000);
        return embedded.service();
    }

    @Override
    void stop() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
