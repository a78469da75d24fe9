package io.simdex.router.index;

import com.google.protobuf.InvalidProtocolBufferException;
import io.simdex.proto.v1.ShardIntentDocs;
import io.simdex.router.shard.Granted;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The documents a Dedup call leaves on its bucket keys before it stores them
 * ({@link DedupLocks#intend}), as bytes the shards keep without reading: ids, fingerprints and
 * what verifies each (a short text or a sketch, or nothing).
 */
record DedupIntents(String[] ids, long[] fps, String[] stored) {
    static byte[] encode(String[] ids, long[] fps, String[] stored, int[] items) {
        ShardIntentDocs.Builder b = ShardIntentDocs.newBuilder();
        for (int i : items) {
            b.addIds(ids[i]).addFingerprints(fps[i]);
            boolean has = stored != null && stored[i] != null;
            b.addStored(has ? stored[i] : "").addHasStored(has);
        }
        return b.build().toByteArray();
    }

    /**
     * The documents of all {@code intents}, the earliest decided first (an id that two of them
     * store ends with the later one's fingerprint, as their inserts would have left it); stored
     * forms null where none, and null altogether when none has one.
     */
    static DedupIntents decode(List<Granted.Intent> intents) {
        List<ShardIntentDocs> all = new ArrayList<>(intents.size());
        intents.stream().sorted(Comparator.comparingLong(Granted.Intent::stamp)).forEach(i -> {
            try {
                all.add(ShardIntentDocs.parseFrom(i.docs()));
            } catch (InvalidProtocolBufferException e) {
                throw new IllegalStateException("a pending Dedup intent of token " + i.token() + " does not parse", e);
            }
        });
        int n = all.stream().mapToInt(ShardIntentDocs::getIdsCount).sum();
        String[] ids = new String[n];
        long[] fps = new long[n];
        String[] stored = new String[n];
        boolean any = false;
        int k = 0;
        for (ShardIntentDocs d : all) {
            for (int i = 0; i < d.getIdsCount(); i++, k++) {
                ids[k] = d.getIds(i);
                fps[k] = d.getFingerprints(i);
                if (d.getHasStored(i)) {
                    stored[k] = d.getStored(i);
                    any = true;
                }
            }
        }
        return new DedupIntents(ids, fps, any ? stored : null);
    }
}
