package io.simdex.router.cluster;

import com.google.protobuf.UInt32Value;
import io.simdex.proto.v1.CollectionInfo;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.router.api.Catalog;
import io.simdex.router.api.CollectionSettingsRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two routers of one cluster see one catalog: what one creates, the other finds; the first creator wins. */
class SharedCatalogTest {
    @TempDir
    Path dir;

    /** The Atomix map's contract, in memory. */
    private static final class InMemory implements Catalog.Shared {
        final ConcurrentHashMap<String, CollectionInfo> map = new ConcurrentHashMap<>();

        @Override
        public CollectionInfo putIfAbsent(CollectionInfo info) {
            return map.putIfAbsent(info.getName(), info);
        }

        @Override
        public Optional<CollectionInfo> get(String name) {
            return Optional.ofNullable(map.get(name));
        }

        @Override
        public List<CollectionInfo> all() {
            return new ArrayList<>(map.values());
        }

        @Override
        public boolean remove(String name) {
            return map.remove(name) != null;
        }

        @Override
        public boolean replace(CollectionInfo expected, CollectionInfo updated) {
            return map.replace(expected.getName(), expected, updated);
        }
    }

    @Test
    void aCollectionDeletedThroughOneRouter_leavesTheOthersCacheAtItsNextListing() {
        InMemory shared = new InMemory();
        Catalog one = new Catalog(dir.resolve("r1"), shared);
        Catalog two = new Catalog(dir.resolve("r2"), shared);
        one.create("news", CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()));
        assertTrue(two.get("news").isPresent());
        assertTrue(one.remove("news"));
        assertFalse(one.remove("news"));
        assertEquals(List.of("default"), two.all().stream().map(CollectionInfo::getName).toList());
        assertTrue(two.get("news").isEmpty());
        assertEquals(List.of("default"), new Catalog(dir.resolve("r2")).all().stream().map(CollectionInfo::getName).toList(),
                "the forgotten entry is gone from the cache file too");
    }

    @Test
    void cached_isWhatARouterAnswersWithoutTheSharedCatalog() {
        InMemory shared = new InMemory();
        Catalog one = new Catalog(dir.resolve("r1"), shared);
        Catalog two = new Catalog(dir.resolve("r2"), shared);
        assertTrue(two.cached(""), "a request that names no collection means the default, always there");
        assertTrue(two.cached("default"));

        one.create("news", CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()));
        assertTrue(one.cached("news"));
        assertFalse(two.cached("news"), "made through another router: the shared catalog must be asked");
        assertTrue(two.get("news").isPresent());
        assertTrue(two.cached("news"), "cached once asked");
        assertTrue(two.remove("news"));
        assertFalse(two.cached("news"));
    }

    @Test
    void aCollectionMadeThroughOneRouter_isFoundThroughAnother_withTheFirstSettings() {
        InMemory shared = new InMemory();
        Catalog one = new Catalog(dir.resolve("r1"), shared);
        Catalog two = new Catalog(dir.resolve("r2"), shared);
        CollectionSettings news = CollectionSettingsRules.complete(CollectionSettings.newBuilder().setNgramSize(4).build());
        assertTrue(one.create("news", news).created());
        assertEquals(news, two.get("news").orElseThrow().getSettings());

        Catalog.Created again = two.create("news", CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()));
        assertFalse(again.created());
        assertEquals(news, again.collection().getSettings(), "the first creator's settings stand");
        assertEquals(List.of("default", "news"), two.all().stream().map(CollectionInfo::getName).toList());
        assertEquals(List.of("default", "news"), new Catalog(dir.resolve("r2")).all().stream().map(CollectionInfo::getName).toList(),
                "the second router cached the shared entry on disk");
    }

    @Test
    void anUpdateThroughOneRouter_reachesTheOthersCacheAtItsNextListing_andItsFile() {
        InMemory shared = new InMemory();
        Catalog one = new Catalog(dir.resolve("r1"), shared);
        Catalog two = new Catalog(dir.resolve("r2"), shared);
        one.create("news", CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()));
        assertEquals(3, two.get("news").orElseThrow().getSettings().getMaxDistance().getValue());

        Catalog.Updated u = one.update("news", s -> s.toBuilder().setMaxDistance(UInt32Value.of(1)).build()).orElseThrow();
        assertTrue(u.changed());
        assertEquals(1, shared.map.get("news").getSettings().getMaxDistance().getValue());
        assertEquals(3, two.get("news").orElseThrow().getSettings().getMaxDistance().getValue(), "cached until its next listing");
        two.all();
        assertEquals(1, two.get("news").orElseThrow().getSettings().getMaxDistance().getValue());
        assertEquals(1, new Catalog(dir.resolve("r2")).get("news").orElseThrow().getSettings().getMaxDistance().getValue(),
                "and in its cache file");
        assertTrue(one.update("gone", s -> s).isEmpty());
    }

    @Test
    void aCollectionMadeAgainWithOtherSettingsThroughOneRouter_replacesTheOthersCachedOne() {
        InMemory shared = new InMemory();
        Catalog one = new Catalog(dir.resolve("r1"), shared);
        Catalog two = new Catalog(dir.resolve("r2"), shared);
        one.create("news", CollectionSettingsRules.complete(CollectionSettings.getDefaultInstance()));
        assertEquals(3, two.get("news").orElseThrow().getSettings().getNgramSize());
        one.remove("news");
        CollectionSettings fourGrams = CollectionSettingsRules.complete(CollectionSettings.newBuilder().setNgramSize(4).build());
        one.create("news", fourGrams);
        two.all();
        assertEquals(fourGrams, two.get("news").orElseThrow().getSettings(), "not the settings of the collection it had cached");
    }

    /** Another router's update made between this one's read and its write is kept: the change is applied to it. */
    @Test
    void anUpdateRacingAnother_isAppliedOnTopOfIt() {
        InMemory shared = new InMemory();
        Catalog one = new Catalog(dir.resolve("r1"), shared);
        one.create("news", CollectionSettingsRules.complete(CollectionSettings.newBuilder().setRetentionSeconds(86_400).build()));
        int[] calls = {0};
        Catalog.Updated u = one.update("news", s -> {
            if (calls[0]++ == 0) { // another router changes the entry after this one read it
                CollectionInfo now = shared.map.get("news");
                shared.map.put("news", now.toBuilder().setSettings(now.getSettings().toBuilder().setRetentionSeconds(172_800)).build());
            }
            return s.toBuilder().setMaxDistance(UInt32Value.of(2)).build();
        }).orElseThrow();
        assertEquals(2, calls[0], "applied again to what the other router stored");
        assertEquals(172_800, u.collection().getSettings().getRetentionSeconds());
        assertEquals(2, u.collection().getSettings().getMaxDistance().getValue());
        assertEquals(u.collection(), shared.map.get("news"));
    }
}
