package io.simdex.router.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Properties;

/** Atomix members of a test's Raft group in this JVM: "node-1" founds it and is its one Raft member; others are its clients. */
final class RaftMembers {
    private RaftMembers() {
    }

    /** Member {@code id} on {@code atomixPort}, its files under {@code dir}, joining through node-1 on {@code founderPort}. */
    static AtomixMember member(Path dir, String id, int atomixPort, int founderPort) throws Exception {
        Properties p = new Properties();
        p.setProperty("id", id);
        p.setProperty("host", "127.0.0.1");
        p.setProperty("port", String.valueOf(freePort()));
        p.setProperty("atomix.port", String.valueOf(atomixPort));
        p.setProperty("data", dir.resolve(id).toString());
        p.setProperty("seeds", "node-1@127.0.0.1:" + founderPort);
        p.setProperty("raft", "node-1");
        return new AtomixMember(ClusterConfig.of(p, id + ".properties"), id.startsWith("node") ? "node" : "router",
                dir.resolve(id).resolve("atomix"), null);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
