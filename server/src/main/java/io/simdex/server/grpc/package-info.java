/**
 * What every simdex gRPC server (a node's shard port, a router's public port) puts around its
 * services: bounds on what a caller can make it hold ({@link io.simdex.server.grpc.ServerBounds}),
 * and one rule for failures that are not the caller's ({@link io.simdex.server.grpc.CallGuard}):
 * the caller gets INTERNAL with a request id, the log gets the stack trace under that id.
 */
package io.simdex.server.grpc;
