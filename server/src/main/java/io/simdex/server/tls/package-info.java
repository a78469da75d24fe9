/**
 * TLS between the members of a cluster, and on public ports: {@link io.simdex.server.tls.TlsFiles}
 * names a member's PEM certificate, key and cluster CA; {@link io.simdex.server.tls.PeerCredentials}
 * turns them into gRPC server and channel credentials for mutual TLS on node ports; both, and a
 * router's public port, present and trust through {@link io.simdex.server.tls.ReloadingCredentials},
 * which reads the files again when they change, so a renewed certificate needs no restart.
 */
package io.simdex.server.tls;
