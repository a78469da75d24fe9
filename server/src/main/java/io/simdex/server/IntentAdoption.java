package io.simdex.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.IntentRecord;
import io.simdex.proto.v1.IntentTokens;
import io.simdex.server.tls.PeerCredentials;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The Dedup intents a node missed while it was behind, taken from its peers once it has caught
 * up. A holder records its intent on every replica of a shard before its first write, and a
 * replica that fails the record is marked behind first; but the pull that clears that mark
 * copies records, not intents. Without this, the node would serve again without the intent,
 * and should the peer that holds it go down before the next holder of its keys, that holder
 * would judge by this node's list, find no intent and drop documents the first holder may have
 * half written. The other direction, intents kept here that the peers settled, is
 * {@link StaleIntents}.
 */
public final class IntentAdoption {
    private IntentAdoption() {
    }

    /**
     * Takes the intents that {@code peers} ("host:port" of their ShardControl services) hold and
     * {@code node} lacks, those whose every key's bucket {@code serves} accepts; returns how many.
     * A peer of a version without the call has nothing to give.
     *
     * @throws StatusRuntimeException when a peer cannot be asked: then nothing is taken from it
     */
    public static int adopt(ShardNode node, List<String> peers, PeerCredentials credentials, IntPredicate serves) {
        int adopted = 0;
        for (String peer : peers) {
            IntentTokens have = IntentTokens.newBuilder().addAllTokens(Arrays.stream(node.pendingIntents()).boxed().toList()).build();
            List<IntentRecord> held;
            try {
                held = PeerControl.call(peer, credentials, stub -> stub.intentRecords(have).getIntentsList());
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
                    continue;
                }
                throw e;
            }
            List<IntentLog.Entry> mine = new ArrayList<>(held.size());
            for (IntentRecord r : held) {
                long[] keys = r.getLockKeysList().stream().mapToLong(Long::longValue).toArray();
                if (keys.length > 0 && Arrays.stream(keys).allMatch(k -> serves.test(ShardNode.bucketKeyOf(k)))) {
                    mine.add(new IntentLog.Entry(new LockGrant.Intent(r.getToken(), r.getStamp(), r.getDocs().toByteArray()), keys));
                }
            }
            adopted += node.adoptIntents(mine);
        }
        return adopted;
    }
}
