/**
 * The echo floor: simdex's public API answering with responses of the usual shape and doing no
 * work, served by the router's own {@code PublicServer}, so that "simdex reached X% of the echo"
 * measures what the index costs on top of gRPC, protobuf and the network stack.
 */
package io.simdex.loadtest.echo;
