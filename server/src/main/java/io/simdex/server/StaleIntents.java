package io.simdex.server;

import io.simdex.proto.v1.IntentTokens;
import io.simdex.server.tls.PeerCredentials;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The Dedup intents a node kept through a time it missed writes, that its peers settled
 * meanwhile. A node that missed a holder's unlock (or its settle) keeps that holder's intent
 * pending, and the next lock of one of its keys hands the intent on, to be stored again: a
 * document deleted since would come back, on every replica. Once the node has mirrored its
 * partitions from peers that missed nothing ({@link PartitionMirror}), an intent it kept from
 * before that none of them holds is one they settled (an intent is recorded on every replica
 * before its first write, and a replica that fails the record is marked behind): it is settled
 * here too. One that some peer still holds stays, for the next holder of its keys.
 */
public final class StaleIntents {
    private StaleIntents() {
    }

    /**
     * Settles those of {@code before} (the intents pending here when the catch-up began) that
     * none of {@code peers} ("host:port" of their ShardControl services) holds; returns how many.
     *
     * @throws io.grpc.StatusRuntimeException when a peer cannot be asked: then nothing is settled
     */
    public static int settle(ShardNode node, long[] before, List<String> peers, PeerCredentials credentials) {
        if (before.length == 0) {
            return 0;
        }
        IntentTokens asked = IntentTokens.newBuilder().addAllTokens(Arrays.stream(before).boxed().toList()).build();
        Set<Long> held = new HashSet<>();
        for (String peer : peers) {
            held.addAll(PeerControl.call(peer, credentials, stub -> stub.pendingIntents(asked).getTokensList()));
        }
        return node.settleIntents(Arrays.stream(before).filter(t -> !held.contains(t)).toArray());
    }
}
