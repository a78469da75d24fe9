package io.simdex.router.cluster;

import com.google.protobuf.UInt32Value;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.router.api.Catalog;
import io.simdex.router.api.CollectionSettingsRules;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The catalog on a real Raft group of one member, through two proxies of its map, as two routers hold them. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedCatalogRaftTest {
    @TempDir
    static Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    /** The Raft group's one member, shared by the tests: a group takes seconds to start. */
    private AtomixMember founder;

    @BeforeAll
    void start() throws Exception {
        int port = RaftMembers.freePort();
        founder = member("node-1", port, port);
    }

    @AfterAll
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void replace_takesOnlyTheEntryItExpects_andTheOtherProxyReadsIt() throws Exception {
        SharedCatalog node = new SharedCatalog(founder.atomix());
        SharedCatalog router = new SharedCatalog(founder.atomix()); // a session of its own, as another router's
        CollectionInfo created = CollectionInfo.newBuilder().setName("news").setCreatedUnixMs(1)
                .setSettings(CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance())).build();
        assertNull(router.putIfAbsent(created));
        CollectionInfo narrower = created.toBuilder().setSettings(created.getSettings().toBuilder().setMaxDistance(UInt32Value.of(1))).build();
        CollectionInfo wider = created.toBuilder().setSettings(created.getSettings().toBuilder().setMaxDistance(UInt32Value.of(2))).build();

        assertTrue(router.replace(created, narrower));
        assertEquals(narrower, node.get("news").orElseThrow());
        assertFalse(node.replace(created, wider), "a writer that read the entry before the change is refused");
        assertEquals(narrower, router.get("news").orElseThrow());
        assertTrue(node.replace(narrower, wider));
        assertEquals(wider, router.get("news").orElseThrow());
        assertFalse(router.replace(created.toBuilder().setName("gone").build(), wider), "no entry, nothing replaced");
        assertTrue(router.get("gone").isEmpty());
    }

    /** A router watching the catalog takes another's update and delete at once, not at its next listing. */
    @Test
    void watch_bringsAnotherRoutersUpdateAndDeleteIntoTheCache() throws Exception {
        Catalog one = new Catalog(dir.resolve("r1"), new SharedCatalog(founder.atomix()));
        SharedCatalog watched = new SharedCatalog(founder.atomix());
        open.add(watched);
        Catalog two = new Catalog(dir.resolve("r2"), watched);
        watched.watch(two::all);
        one.create("posts", CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()));
        await("router two caches posts", () -> two.cached("posts"));

        one.update("posts", s -> s.toBuilder().setMaxDistance(UInt32Value.of(1)).build());
        await("router two has the update", () -> two.get("posts").orElseThrow().getSettings().getMaxDistance().getValue() == 1);
        one.remove("posts");
        await("router two forgot posts", () -> !two.cached("posts"));
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < until, what + " within 20 s");
            Thread.sleep(10);
        }
    }

    private AtomixMember member(String id, int atomixPort, int founderPort) throws Exception {
        AtomixMember m = RaftMembers.member(dir, id, atomixPort, founderPort);
        open.add(m);
        return m;
    }

}
