package io.simdex.router.index;

import com.google.protobuf.InvalidProtocolBufferException;
import io.simdex.proto.v1.ShardIntentDocs;
import io.simdex.router.shard.Granted;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The documents a Dedup call leaves on its bucket keys before it stores them
 * ({@link DedupLocks#intend}), as bytes the shards keep without reading: the call, the reach of
 * its locks, and each document's id, fingerprint and what verifies it (a short text or a
 * sketch, or nothing). Each shard gets the documents with a key there.
 */
final class DedupIntents {
    private DedupIntents() {
    }

    /** A document a call decided to keep: its call, the reach of its locks, its last decision number. */
    record Doc(long call, int reach, long stamp, String id, long fp, String stored) {
    }

    /** Documents to insert, in order; {@code stored} null when none has a stored form. */
    record Batch(String[] ids, long[] fps, String[] stored) {
    }

    static byte[] encode(long call, int reach, String[] ids, long[] fps, String[] stored, int[] items) {
        ShardIntentDocs.Builder b = ShardIntentDocs.newBuilder().setCall(call).setReach(reach);
        for (int i : items) {
            b.addIds(ids[i]).addFingerprints(fps[i]);
            boolean has = stored != null && stored[i] != null;
            b.addStored(has ? stored[i] : "").addHasStored(has);
        }
        return b.build().toByteArray();
    }

    /** The documents of {@code intents}, each (call, id) once, in the order found. */
    static List<Doc> decode(List<Granted.Intent> intents) {
        List<Doc> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Granted.Intent intent : intents) {
            ShardIntentDocs d = parse(intent);
            long call = call(intent, d);
            for (int i = 0; i < d.getIdsCount(); i++) {
                if (seen.add(call + "/" + d.getIds(i))) {
                    out.add(new Doc(call, d.getReach(), intent.stamp(), d.getIds(i), d.getFingerprints(i), d.getHasStored(i) ? d.getStored(i) : null));
                }
            }
        }
        return out;
    }

    /** The calls that left {@code intents}. */
    static Set<Long> calls(List<Granted.Intent> intents) {
        Set<Long> out = new HashSet<>();
        for (Granted.Intent intent : intents) {
            out.add(call(intent, parse(intent)));
        }
        return out;
    }

    /**
     * {@code docs} to insert, the earliest decided first: an id that two calls store ends with
     * the later one's fingerprint, as their inserts would have left it.
     */
    static Batch batch(List<Doc> docs) {
        List<Doc> sorted = docs.stream().sorted(Comparator.comparingLong(Doc::stamp)).toList();
        String[] ids = new String[sorted.size()];
        long[] fps = new long[ids.length];
        String[] stored = new String[ids.length];
        boolean any = false;
        for (int i = 0; i < ids.length; i++) {
            Doc d = sorted.get(i);
            ids[i] = d.id();
            fps[i] = d.fp();
            stored[i] = d.stored();
            any |= d.stored() != null;
        }
        return new Batch(ids, fps, any ? stored : null);
    }

    /** An intent left by a router that used one token on every shard names no call: its token is the call's. */
    private static long call(Granted.Intent intent, ShardIntentDocs d) {
        return d.getCall() != 0 ? d.getCall() : intent.token();
    }

    private static ShardIntentDocs parse(Granted.Intent intent) {
        try {
            return ShardIntentDocs.parseFrom(intent.docs());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a pending Dedup intent of token " + intent.token() + " does not parse", e);
        }
    }
}
