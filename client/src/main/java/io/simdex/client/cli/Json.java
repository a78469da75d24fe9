package io.simdex.client.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import io.simdex.client.CollectionInfo;
import io.simdex.client.CollectionStats;
import io.simdex.client.DedupDecision;
import io.simdex.client.Fingerprints;
import io.simdex.client.Match;
import io.simdex.proto.v1.Member;
import io.simdex.proto.v1.MembersResponse;
import io.simdex.proto.v1.NodeShare;
import io.simdex.proto.v1.PartitionReplicas;
import io.simdex.proto.v1.PlacementResponse;
import java.util.List;

/**
 * The {@code --json} shapes of results. Fingerprints are strings of 16 hex digits, because
 * unsigned 64-bit values do not survive JSON readers that use doubles.
 */
final class Json {
    static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    private Json() {
    }

    static JsonObject match(Match m) {
        JsonObject o = new JsonObject();
        o.addProperty("id", m.id());
        o.addProperty("fingerprint", Fingerprints.format(m.fingerprint()));
        o.addProperty("distance", m.distance());
        if (m.similarity() >= 0) {
            o.addProperty("similarity", m.similarity());
        }
        return o;
    }

    static JsonArray matches(List<Match> matches) {
        JsonArray a = new JsonArray(matches.size());
        matches.forEach(m -> a.add(match(m)));
        return a;
    }

    static JsonObject decision(DedupDecision d) {
        JsonObject o = new JsonObject();
        o.addProperty("id", d.id());
        o.addProperty("fingerprint", Fingerprints.format(d.fingerprint()));
        o.addProperty("inserted", d.inserted());
        o.add("duplicates", matches(d.duplicates()));
        o.addProperty("totalMatches", d.totalMatches());
        o.addProperty("knownText", d.knownText());
        o.addProperty("sequence", d.sequence());
        return o;
    }

    static JsonObject collection(CollectionInfo c) {
        JsonObject o = new JsonObject();
        o.addProperty("name", c.name());
        o.addProperty("createdAt", c.createdAt().toString());
        o.add("settings", settings(c.settings()));
        return o;
    }

    static JsonObject settings(io.simdex.proto.v1.CollectionSettings s) {
        JsonObject o = new JsonObject();
        o.addProperty("maxDistance", s.getMaxDistance().getValue());
        o.addProperty("tokenization", s.getTokenization().name());
        o.addProperty("ngramSize", s.getNgramSize());
        o.addProperty("weighting", s.getWeighting().name());
        o.addProperty("idfTerms", s.getIdfCount());
        o.addProperty("builtInIdf", s.getBuiltInIdf());
        o.addProperty("keepStopWords", s.getKeepStopWords());
        o.addProperty("hanTokens", SettingsOptions.hanTokens(s).name());
        o.addProperty("stopWords", SettingsOptions.stopWords(s).name());
        if (s.hasShortText()) {
            JsonObject t = new JsonObject();
            t.addProperty("maxChars", s.getShortText().getMaxChars());
            t.addProperty("candidateDistance", s.getShortText().getCandidateDistance());
            t.addProperty("minJaccard", s.getShortText().getMinJaccard());
            o.add("shortText", t);
        }
        if (s.hasSketch() && s.getSketch().getEnabled()) {
            JsonObject t = new JsonObject();
            t.addProperty("candidateDistance", s.getSketch().getCandidateDistance());
            if (s.getSketch().getWideMaxWords() != 0) {
                t.addProperty("wideCandidateDistance", s.getSketch().getWideCandidateDistance());
                t.addProperty("wideMaxWords", s.getSketch().getWideMaxWords());
            }
            t.addProperty("minJaccard", s.getSketch().getMinJaccard());
            o.add("sketch", t);
        }
        if (s.hasShortFingerprint() && s.getShortFingerprint().getEnabled()) {
            JsonObject t = new JsonObject();
            t.addProperty("maxLetters", s.getShortFingerprint().getMaxLetters());
            t.addProperty("candidateDistance", s.getShortFingerprint().getCandidateDistance());
            if (s.getShortFingerprint().getMinJaccard() != 0) {
                t.addProperty("minJaccard", s.getShortFingerprint().getMinJaccard());
            }
            t.addProperty("blocks", SettingsOptions.Blocks.name(s.getShortFingerprint().getBlocks()));
            t.addProperty("order", SettingsOptions.Order.name(s.getShortFingerprint().getOrder()));
            o.add("shortFingerprint", t);
        }
        o.addProperty("retentionSeconds", s.getRetentionSeconds());
        o.addProperty("generationSeconds", s.getGenerationSeconds());
        return o;
    }

    static JsonObject stats(CollectionStats s) {
        JsonObject o = new JsonObject();
        o.addProperty("collection", s.collection());
        o.addProperty("documents", s.documents());
        o.addProperty("fingerprints", s.fingerprints());
        o.addProperty("shards", s.shards());
        o.addProperty("tableBytes", s.tableBytes());
        o.addProperty("docBytes", s.docBytes());
        o.addProperty("bucketEntries", s.bucketEntries());
        return o;
    }

    /** {@code admin members}: every field of each member, booleans as booleans. */
    static JsonObject members(MembersResponse r) {
        JsonArray members = new JsonArray(r.getMembersCount());
        for (Member m : r.getMembersList()) {
            JsonObject o = new JsonObject();
            o.addProperty("id", m.getId());
            o.addProperty("role", m.getRole());
            o.addProperty("address", m.getAddress());
            o.addProperty("live", m.getLive());
            o.addProperty("raft", m.getRaft());
            o.addProperty("replicas", m.getReplicas());
            o.addProperty("incoming", m.getIncoming());
            o.addProperty("readable", m.getReadable());
            o.addProperty("state", m.getState());
            members.add(o);
        }
        JsonObject o = new JsonObject();
        o.addProperty("epoch", r.getEpoch());
        o.add("members", members);
        return o;
    }

    /** {@code admin placement}: the summary, and "partitions" only when the response has them. */
    static JsonObject placement(PlacementResponse r) {
        JsonObject o = new JsonObject();
        o.addProperty("epoch", r.getEpoch());
        o.addProperty("replication", r.getReplication());
        o.addProperty("writeQuorum", r.getWriteQuorum());
        o.addProperty("moving", r.getMoving());
        JsonArray nodes = new JsonArray(r.getNodesCount());
        for (NodeShare n : r.getNodesList()) {
            JsonObject node = new JsonObject();
            node.addProperty("node", n.getNode());
            node.addProperty("state", n.getState());
            node.addProperty("replicas", n.getReplicas());
            node.addProperty("incoming", n.getIncoming());
            nodes.add(node);
        }
        o.add("nodes", nodes);
        if (r.getPartitionsCount() > 0) {
            JsonArray partitions = new JsonArray(r.getPartitionsCount());
            for (PartitionReplicas p : r.getPartitionsList()) {
                JsonObject part = new JsonObject();
                part.addProperty("partition", p.getPartition());
                part.add("replicas", strings(p.getReplicasList()));
                part.add("incoming", strings(p.getIncomingList()));
                partitions.add(part);
            }
            o.add("partitions", partitions);
        }
        return o;
    }

    private static JsonArray strings(List<String> values) {
        JsonArray a = new JsonArray(values.size());
        values.forEach(a::add);
        return a;
    }

    static JsonObject of(String key, Number value) {
        JsonObject o = new JsonObject();
        o.addProperty(key, value);
        return o;
    }
}
