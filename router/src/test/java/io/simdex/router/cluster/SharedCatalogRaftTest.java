package io.simdex.router.cluster;

import com.google.protobuf.UInt32Value;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.router.api.CollectionSettingsRules;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The catalog's compare-and-set on a real Raft group of one member, through two proxies of the map, as two routers hold. */
class SharedCatalogRaftTest {
    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void replace_takesOnlyTheEntryItExpects_andTheOtherProxyReadsIt() throws Exception {
        int port = RaftMembers.freePort();
        AtomixMember founder = member("node-1", port, port);
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

    private AtomixMember member(String id, int atomixPort, int founderPort) throws Exception {
        AtomixMember m = RaftMembers.member(dir, id, atomixPort, founderPort);
        open.add(m);
        return m;
    }

}
