/**
 * Settings of the server processes, one story for all of them: a key (for example
 * {@code write.quorum}) has a default, may be set in the process's Java properties file
 * ({@code --config}), overridden by the environment variable {@code SIMDEX_WRITE_QUORUM}
 * ({@link io.simdex.router.config.EnvNames}) and by a flag; the flag wins, then the environment,
 * then the file ({@link io.simdex.router.config.Settings}). Which keys a process reads is its
 * {@link io.simdex.router.config.ConfigSchema}; a key it does not read is an error naming where it
 * was set, since a typo would otherwise fall back to the default without a word.
 */
package io.simdex.router.config;
