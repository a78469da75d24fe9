package io.simdex.client.cli;

import static io.simdex.client.FakeAdmin.progress;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.grpc.Status;
import io.simdex.client.FakeAdmin;
import io.simdex.client.FakeSimdex;
import io.simdex.client.InProcessServer;
import io.simdex.client.SimdexAdmin;
import io.simdex.client.SimdexClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ExitCode;

class AdminCliTest {
    private final FakeAdmin fake = new FakeAdmin();
    private InProcessServer server;

    @BeforeEach
    void start() throws Exception {
        server = InProcessServer.start(fake);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void members_table_oneRowPerMemberRoutersDashed() {
        Run run = run("admin", "members");

        assertEquals(0, run.exit, run.err);
        assertEquals("""
                id        role    address        live  raft  replicas  incoming  readable  state
                node-1    node    10.0.0.1:7511  yes   yes   4096      0         yes       active
                node-2    node    10.0.0.2:7512  no    yes   2048      12        no        draining
                router-1  router  10.0.0.9:7411  yes   -     -         -         -         -
                placement epoch 7
                """, run.out);
    }

    @Test
    void members_json_everyFieldOfEveryMember() {
        Run run = run("admin", "members", "--json");

        assertEquals(0, run.exit, run.err);
        JsonObject o = JsonParser.parseString(run.out).getAsJsonObject();
        assertEquals(7, o.get("epoch").getAsLong());
        JsonObject node2 = o.getAsJsonArray("members").get(1).getAsJsonObject();
        assertEquals("node-2", node2.get("id").getAsString());
        assertFalse(node2.get("live").getAsBoolean());
        assertEquals(12, node2.get("incoming").getAsInt());
        assertEquals("draining", node2.get("state").getAsString());
    }

    @Test
    void placement_summary_sharesOfAllReplicas() {
        Run run = run("admin", "placement");

        assertEquals(0, run.exit, run.err);
        assertEquals("""
                epoch:         7
                replication:   2
                write quorum:  1
                moving:        1 partitions

                node    state     replicas  incoming  share
                node-1  active    3         0         75.0%
                node-2  draining  1         1         25.0%
                """, run.out);
        assertEquals(List.of("placement false"), fake.calls);
    }

    @Test
    void placement_partitionsOption_oneLinePerPartition() {
        Run run = run("admin", "placement", "--partitions");

        assertEquals(0, run.exit, run.err);
        assertTrue(run.out.endsWith("""
                partition  replicas       incoming
                0          node-1,node-2  -
                1          node-1         -
                2          node-1         node-2
                """), run.out);
        assertEquals(List.of("placement true"), fake.calls);
    }

    @Test
    void placement_jsonWithPartitions_listsReplicasInOrder() {
        Run run = run("admin", "placement", "--partitions", "--json");

        assertEquals(0, run.exit, run.err);
        JsonObject o = JsonParser.parseString(run.out).getAsJsonObject();
        assertEquals(1, o.get("writeQuorum").getAsInt());
        assertEquals(2, o.getAsJsonArray("nodes").size());
        JsonObject p0 = o.getAsJsonArray("partitions").get(0).getAsJsonObject();
        assertEquals("[\"node-1\",\"node-2\"]", p0.getAsJsonArray("replicas").toString());
    }

    @Test
    void add_streamedProgress_drawsBarAndPrintsSummary() {
        fake.moves = List.of(progress(0, 4, "copying 4 partitions from node-1 to node-3"),
                progress(1, 4, "copying"), progress(3, 4, "copying"), progress(4, 4, "switched"));

        Run run = run("admin", "add", "node-3");

        assertEquals(0, run.exit, run.err);
        assertEquals(List.of("add node-3"), fake.calls);
        assertTrue(run.out.startsWith("added node-3: moved 4 partitions, 4000 records in "), run.out);
        assertTrue(run.out.endsWith(" records/s); epoch 11\n"), run.out);
        assertTrue(run.err.contains("4/4 partitions"), run.err);
        assertTrue(run.err.contains("switched (4000 records)"), run.err);
    }

    @Test
    void add_json_summaryObjectWithoutBar() {
        fake.moves = List.of(progress(1, 2, "copying"), progress(2, 2, "switched"));

        Run run = run("admin", "add", "node-3", "--json");

        assertEquals(0, run.exit, run.err);
        assertEquals("", run.err);
        JsonObject o = JsonParser.parseString(run.out).getAsJsonObject();
        assertEquals("add", o.get("action").getAsString());
        assertEquals(2000, o.get("records").getAsLong());
        assertEquals(9, o.get("epoch").getAsLong());
    }

    @Test
    void add_errorStatusMidStream_printsStatusExitsTwo() {
        fake.moves = List.of(progress(0, 4, "copying"), progress(1, 4, "copying"));
        fake.moveEnd = Status.UNAVAILABLE.withDescription("node-1 unreachable");

        Run run = run("admin", "add", "node-3");

        assertEquals(SimdexCli.EXIT_RPC_ERROR, run.exit);
        assertEquals("", run.out);
        assertTrue(run.err.endsWith("error: UNAVAILABLE: node-1 unreachable\n"), run.err);
    }

    @Test
    void add_streamEndsBeforeDone_reportsPartialMoveExitsTwo() {
        fake.moves = List.of(progress(1, 4, "copying"));

        Run run = run("admin", "add", "node-3", "--no-progress");

        assertEquals(SimdexCli.EXIT_RPC_ERROR, run.exit);
        assertEquals("error: the move stream ended before it was done (1 of 4 partitions moved)\n", run.err);
    }

    @Test
    void drain_streamedProgress_summarySaysDrained() {
        fake.moves = List.of(progress(1, 3, "copying"), progress(2, 3, "copying"), progress(3, 3, "switched"));

        Run run = run("admin", "drain", "node-2", "--no-progress");

        assertEquals(0, run.exit, run.err);
        assertEquals(List.of("drain node-2"), fake.calls);
        assertTrue(run.out.startsWith("drained node-2: moved 3 partitions, 3000 records in "), run.out);
        assertEquals("", run.err);
    }

    @Test
    void remove_drainedNode_printsNewPlacement() {
        Run run = run("admin", "remove", "node-2");

        assertEquals(0, run.exit, run.err);
        assertTrue(run.out.startsWith("removed node-2\n\nepoch:         9\n"), run.out);
    }

    @Test
    void remove_nodeHoldingReplicas_failedPreconditionExitsTwo() {
        Run run = run("admin", "remove", "node-1");

        assertEquals(SimdexCli.EXIT_RPC_ERROR, run.exit);
        assertEquals("error: FAILED_PRECONDITION: node-1 still holds 4096 replicas; drain it first\n", run.err);
    }

    @Test
    void members_serverWithoutCluster_unimplementedExitsTwo() throws Exception {
        try (InProcessServer embedded = InProcessServer.start(new FakeSimdex())) {
            Run run = run(embedded, "admin", "members");

            assertEquals(SimdexCli.EXIT_RPC_ERROR, run.exit);
            assertTrue(run.err.startsWith("error: UNIMPLEMENTED"), run.err);
        }
    }

    @Test
    void admin_noSubcommand_usageError() {
        Run run = run("admin");

        assertEquals(ExitCode.USAGE, run.exit);
        assertTrue(run.err.contains("Missing required subcommand: members, placement, add, drain or remove"), run.err);
    }

    @Test
    void add_missingNode_usageError() {
        Run run = run("admin", "add");

        assertEquals(ExitCode.USAGE, run.exit);
        assertTrue(run.err.contains("NODE"), run.err);
        assertEquals(List.of(), fake.calls);
    }

    private Run run(String... args) {
        return run(server, args);
    }

    private static Run run(InProcessServer target, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = SimdexCli.run((t, options) -> SimdexClient.over(target.channel(), options),
                (t, options) -> SimdexAdmin.over(target.channel(), options),
                new PrintWriter(out), new PrintWriter(err), args);
        return new Run(exit, out.toString().replace(System.lineSeparator(), "\n"),
                err.toString().replace(System.lineSeparator(), "\n"));
    }

    private record Run(int exit, String out, String err) {
    }
}
