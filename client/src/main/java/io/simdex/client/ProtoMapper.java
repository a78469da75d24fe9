package io.simdex.client;

import io.simdex.proto.v1.DedupResult;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.QueryResult;
import io.simdex.proto.v1.StatsResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts between this package's records and the generated messages. The proto types whose
 * simple names this package reuses ({@code Match}, {@code Probe}, {@code CollectionInfo}) are
 * spelled out in full.
 */
final class ProtoMapper {
    private ProtoMapper() {
    }

    static Document toProto(Doc doc) {
        Document.Builder b = Document.newBuilder().setId(doc.id());
        return doc.hasFingerprint() ? b.setFingerprint(doc.fingerprint()).build() : b.setText(doc.text()).build();
    }

    static io.simdex.proto.v1.Probe toProto(Probe probe) {
        io.simdex.proto.v1.Probe.Builder b = io.simdex.proto.v1.Probe.newBuilder();
        return probe.hasFingerprint() ? b.setFingerprint(probe.fingerprint()).build() : b.setText(probe.text()).build();
    }

    static ProbeMatches fromProto(QueryResult result) {
        return new ProbeMatches(result.getFingerprint(), matches(result.getMatchesList()), result.getTotalMatches());
    }

    static DedupDecision fromProto(DedupResult result) {
        return new DedupDecision(result.getId(), result.getFingerprint(), result.getInserted(),
                matches(result.getDuplicatesList()), result.getKnownText(), result.getSequence(), result.getTotalMatches());
    }

    static CollectionInfo fromProto(io.simdex.proto.v1.CollectionInfo info) {
        return new CollectionInfo(info.getName(), Instant.ofEpochMilli(info.getCreatedUnixMs()), info.getSettings());
    }

    static CollectionStats fromProto(StatsResponse r) {
        return new CollectionStats(r.getCollection(), r.getDocuments(), r.getFingerprints(), r.getShards(),
                r.getTableBytes(), r.getDocBytes(), r.getBucketEntries());
    }

    private static List<Match> matches(List<io.simdex.proto.v1.Match> protos) {
        List<Match> out = new ArrayList<>(protos.size());
        for (io.simdex.proto.v1.Match m : protos) {
            out.add(new Match(m.getId(), m.getFingerprint(), m.getDistance(), m.getSimilarity()));
        }
        return out;
    }
}
