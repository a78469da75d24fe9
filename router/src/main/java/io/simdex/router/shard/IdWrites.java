package io.simdex.router.shard;

import java.util.concurrent.CompletableFuture;

/** The answers of an insert's ids phase on one shard ({@link ShardClient#writeIds}): what each id was bound to, and which fingerprints had no ids. */
public record IdWrites(CompletableFuture<Previous> bound, CompletableFuture<boolean[]> attached) {
}
