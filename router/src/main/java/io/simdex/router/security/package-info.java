/**
 * Who may call a public port: {@link io.simdex.router.security.ServerSecurity} gathers TLS
 * (optionally requiring client certificates), bearer tokens and the loopback rule for plaintext;
 * {@link io.simdex.router.security.AuthInterceptor} checks each call's token against an
 * {@link io.simdex.router.security.AuthFile} (re-read when it changes) of
 * {@link io.simdex.router.security.TokenTable} lines, by the role and collection
 * {@link io.simdex.router.security.MethodRules} give each method. Tokens are kept and compared
 * only as SHA-256 hashes, in constant time.
 */
package io.simdex.router.security;
