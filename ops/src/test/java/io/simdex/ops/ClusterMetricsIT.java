package io.simdex.ops;

import io.simdex.core.Partitions;
import io.simdex.ops.cluster.InSyncStamp;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.Member;
import io.simdex.proto.v1.SimdexGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replicated cluster's processes (3 nodes, R=2, and a router, from their config files'
 * {@code metrics.port}) publish the cluster as Admin reports it, and the nodes' store gauges
 * count every replica's copy. A node restarted with nothing missed serves without pulling its
 * share; one whose stamp names another boot pulls it.
 */
class ClusterMetricsIT {
    private static final int DOCUMENTS = 2_000;

    @TempDir
    Path dir;

    @Test
    void clusterProcesses_publishEpochMembersPlacementAndReplicatedDocuments() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3)) {
            cluster.startFounders();
            for (int i = 1; i <= 3; i++) {
                cluster.awaitMember("node-" + i, "live and readable", m -> m.getLive() && m.getReadable());
            }
            InsertRequest.Builder insert = InsertRequest.newBuilder();
            long[] fps = new SplittableRandom(3).longs(DOCUMENTS).toArray();
            for (int i = 0; i < DOCUMENTS; i++) {
                insert.addDocuments(Document.newBuilder().setId("doc-" + i).setFingerprint(fps[i]));
            }
            // The first write creates every node's maps: on a busy machine a replica may time out, and the Insert is sent again.
            assertNull(ReplicatedClusterIT.insert(SimdexGrpc.newBlockingStub(cluster.channel()), insert.build(), "the documents"));

            int routerMetrics = Metrics.port(cluster.process("router-1"));
            String router = cluster.await("every node up in the router's metrics", () -> Metrics.scrape(routerMetrics),
                    s -> Metrics.value(s, "simdex_cluster_node_up{node=\"node-1\"}") == 1
                            && Metrics.value(s, "simdex_cluster_node_up{node=\"node-2\"}") == 1
                            && Metrics.value(s, "simdex_cluster_node_up{node=\"node-3\"}") == 1, s -> "(scrape)");
            double epoch = Metrics.value(router, "simdex_cluster_epoch");
            assertTrue(epoch >= 1, "epoch " + epoch);
            assertEquals(0, Metrics.value(router, "simdex_cluster_moving_partitions"));
            assertTrue(Metrics.value(router, "simdex_cluster_members_live") >= 3, router);
            double replicas = 0;
            for (int i = 1; i <= 3; i++) {
                Member m = cluster.member("node-" + i);
                double partitions = Metrics.value(router, "simdex_cluster_node_partitions{node=\"node-" + i + "\"}");
                assertEquals(m.getReplicas(), partitions, "node-" + i + ": as Admin.Members says");
                assertEquals(0, Metrics.value(router, "simdex_cluster_node_behind{node=\"node-" + i + "\"}"));
                replicas += partitions;
            }
            assertEquals(2 * Partitions.COUNT, replicas, "R=2: every partition twice");
            assertEquals(1, Metrics.value(router, "grpc_server_call_duration_seconds_count{grpc_method=\"simdex.v1.Simdex/Insert\",grpc_status=\"OK\"}"),
                    "the one acknowledged Insert");

            double stored = 0;
            for (int i = 1; i <= 3; i++) {
                String node = Metrics.scrape(Metrics.port(cluster.process("node-" + i)));
                assertEquals(1, Metrics.value(node, "simdex_node_readable"), "node-" + i);
                assertEquals(0, Metrics.value(node, "simdex_node_catchup_removed_total"), "node-" + i + ": nothing missed, nothing removed");
                assertEquals(epoch, Metrics.value(node, "simdex_cluster_epoch"), "node-" + i);
                stored += Metrics.value(node, "simdex_documents{collection=\"default\"}");
            }
            assertEquals(2 * DOCUMENTS, stored, "each document on both replicas of its partition");
            String routerLog = cluster.process("router-1").output();
            assertFalse(routerLog.contains(AtomixStartWarnings.FIRST_ATTEMPT), "a normal start warns of nothing: " + routerLog);

            // Restarted after SIGKILL with nothing written meanwhile: it serves without pulling its share.
            double node3Documents = Metrics.value(Metrics.scrape(Metrics.port(cluster.process("node-3"))),
                    "simdex_documents{collection=\"default\"}");
            String restarted = restart(cluster, "node-3", () -> { });
            assertEquals(1, Metrics.value(restarted, "simdex_node_catchup_skipped_total"), "same boot, nothing missed: no pull");
            assertEquals(0, Metrics.value(restarted, "simdex_node_catchup_records_total"));
            assertEquals(node3Documents, Metrics.value(restarted, "simdex_documents{collection=\"default\"}"));

            // Its stamp naming another boot (an OS crash may have lost what the page cache held): it pulls.
            Path stamp = dir.resolve("node-3").resolve("shard").resolve(InSyncStamp.FILE);
            String pulled = restart(cluster, "node-3", () -> {
                String text = Files.readString(stamp);
                assertTrue(text.contains("boot="), text);
                Files.writeString(stamp, text.replaceAll("boot=.*", "boot=another-boot"));
            });
            assertEquals(0, Metrics.value(pulled, "simdex_node_catchup_skipped_total"), "another boot: pulled");
            double records = Metrics.value(pulled, "simdex_node_catchup_records_total");
            assertTrue(records >= 4 * node3Documents, "its whole share copied (four bucket entries a document, then the ids): " + records);
            assertEquals(node3Documents, Metrics.value(pulled, "simdex_documents{collection=\"default\"}"));
        }
    }

    private interface WhileDown {
        void run() throws Exception;
    }

    /** SIGKILLs node {@code id}, runs {@code whileDown}, starts it again, waits until it serves reads; returns its metrics. */
    private static String restart(ProcessCluster cluster, String id, WhileDown whileDown) throws Exception {
        cluster.process(id).kill9();
        whileDown.run();
        cluster.launch(id);
        cluster.awaitServing(id);
        cluster.awaitMember(id, "readable again", m -> m.getLive() && m.getReadable());
        return Metrics.scrape(Metrics.port(cluster.process(id)));
    }
}
