package io.simdex.server;

import io.simdex.proto.v1.ShardPrepareRequest;
import io.simdex.server.store.CollectionStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stores of a generation created ahead of its first write, and writers that never wait for another generation's creation. */
class PrepareGenerationTest {
    @TempDir
    Path dir;

    @Test
    void prepareGeneration_overGrpc_createsTheStoreOnce_andKeepsWhatItHolds() throws Exception {
        try (TestShard shard = new TestShard(dir, NodeState.standalone())) {
            ShardPrepareRequest g7 = ShardPrepareRequest.newBuilder().setCollection("news").setGeneration(7).build();

            assertEquals(0, shard.stub().prepareGeneration(g7).getChanged(), "no store of news here yet: left alone");
            assertFalse(Files.exists(dir.resolve("news").resolve("g-7")));
            g7 = g7.toBuilder().setEvenIfUnused(true).build();
            assertEquals(1, shard.stub().prepareGeneration(g7).getChanged());
            assertTrue(Files.isDirectory(dir.resolve("news").resolve("g-7")), "the generation's files exist before any write");
            shard.node.attachIds("news", 7, new long[]{0x1234L}, new String[]{"a"});
            assertEquals(0, shard.stub().prepareGeneration(g7).getChanged(), "an existing store is left alone");
            assertEquals("a", shard.node.resolveIds("news", new long[]{7}, new long[]{0x1234L})[0][0]);
        }
    }

    /**
     * The creation lock is held (as while a large store is being created): writers to an existing
     * generation go on, a writer to the generation being created waits for it.
     */
    @Test
    void writable_existingGeneration_doesNotWaitForAnotherGenerationsCreation() throws Exception {
        try (CollectionGenerations gens = new CollectionGenerations(dir.resolve("c"), TestShard.SIZING)) {
            CollectionStore current = gens.writable(1);
            CompletableFuture<CollectionStore> sameGeneration;
            CompletableFuture<CollectionStore> newGeneration;
            synchronized (gens) {
                sameGeneration = CompletableFuture.supplyAsync(() -> gens.writable(1));
                newGeneration = CompletableFuture.supplyAsync(() -> gens.writable(2));
                assertSame(current, sameGeneration.get(30, TimeUnit.SECONDS));
                assertThrows(TimeoutException.class, () -> newGeneration.get(300, TimeUnit.MILLISECONDS));
            }
            assertFalse(newGeneration.get(30, TimeUnit.SECONDS) == current);
            assertFalse(gens.prepare(2, false), "already created by the waiting writer");
            assertTrue(gens.prepare(3, false), "in use: it has stores");
        }
    }
}
