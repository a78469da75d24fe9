package io.simdex.ops;

import org.slf4j.bridge.SLF4JBridgeHandler;

import java.util.Set;

/**
 * Chooses the process's Logback configuration before anything logs: {@code logback-server.xml}
 * (console and a rolling file in {@code -Dsimdex.log.dir}, default {@code logs}) for the node,
 * shard and router commands, and for {@code embedded} when {@code simdex.log.dir} is given;
 * {@code logback.xml} (console only) otherwise, so a first try writes no files. Routes
 * java.util.logging, which gRPC and parts of simdex use, into the same appenders.
 */
final class Logging {
    static final String LOG_DIR = "simdex.log.dir";
    private static final Set<String> WITH_FILES = Set.of("shard", "router", "node");

    private Logging() {
    }

    static void configure(String command) {
        if (WITH_FILES.contains(command) || "embedded".equals(command) && System.getProperty(LOG_DIR) != null) {
            System.setProperty("simdex.process", command);
            if (System.getProperty("logback.configurationFile") == null) {
                System.setProperty("logback.configurationFile", "logback-server.xml");
            }
        }
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
    }
}
