package io.simdex.client;

import io.grpc.BindableService;

import java.nio.file.Path;

/** {@link SimdexContract} against the client tests' fake. */
class FakeSimdexContractTest extends SimdexContract {
    @Override
    BindableService start(Path dir) {
        return new FakeSimdex();
    }
}
