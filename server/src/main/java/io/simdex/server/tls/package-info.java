/**
 * TLS between the members of a cluster: {@link io.simdex.server.tls.TlsFiles} names a member's
 * PEM certificate, key and cluster CA; {@link io.simdex.server.tls.PeerCredentials} turns them
 * into gRPC server and channel credentials for mutual TLS on node ports.
 */
package io.simdex.server.tls;
