package io.simdex.server;

import io.grpc.Status;

/**
 * Where a node reports each request it answered inside a long-lived stream, as the unary call it
 * stands for: a ReadStream request is a ProbeMany or a ResolveIds, so call metrics count and time
 * it under that method's name, and a query's node calls read the same whether they went unary or
 * streamed.
 */
@FunctionalInterface
public interface StreamedRequests {
    StreamedRequests NONE = (method, code, nanos) -> {
    };

    /** One request of {@code fullMethodName} answered with {@code code}, {@code nanos} after it arrived. */
    void answered(String fullMethodName, Status.Code code, long nanos);
}
