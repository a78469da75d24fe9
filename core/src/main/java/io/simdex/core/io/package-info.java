/**
 * File helpers that the router and the shard server share: {@link io.simdex.core.io.DurableFiles}
 * replaces small settings files so that they survive an OS crash; {@link io.simdex.core.io.FileTrees}
 * removes directory trees.
 */
package io.simdex.core.io;
