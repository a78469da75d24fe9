package io.simdex.client.cli;

import io.simdex.client.SimdexClient;
import io.simdex.proto.v1.HandlingTimesResponse;
import io.simdex.proto.v1.MethodHandlingTime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code handling-times}: the server's own time per RPC method, in microseconds. */
@Command(name = "handling-times", description = "Print how long the server took to handle each RPC method (microseconds).")
final class HandlingTimesCommand extends ClientCommand {
    @Option(names = "--reset", description = "Start counting afresh after printing.")
    boolean reset;

    @Override
    int execute(SimdexClient client) {
        HandlingTimesResponse r = client.handlingTimes(reset);
        if (json()) {
            com.google.gson.JsonArray array = new com.google.gson.JsonArray();
            for (MethodHandlingTime m : r.getMethodsList()) {
                com.google.gson.JsonObject o = new com.google.gson.JsonObject();
                o.addProperty("method", m.getMethod());
                o.addProperty("calls", m.getCalls());
                o.addProperty("p50Us", m.getP50Us());
                o.addProperty("p90Us", m.getP90Us());
                o.addProperty("p99Us", m.getP99Us());
                o.addProperty("p999Us", m.getP999Us());
                o.addProperty("maxUs", m.getMaxUs());
                o.addProperty("queuedP50Us", m.getQueuedP50Us());
                o.addProperty("queuedP99Us", m.getQueuedP99Us());
                o.addProperty("queuedP999Us", m.getQueuedP999Us());
                o.addProperty("queuedMaxUs", m.getQueuedMaxUs());
                array.add(o);
            }
            com.google.gson.JsonObject o = new com.google.gson.JsonObject();
            o.add("methods", array);
            printJson(o);
        } else {
            // "queued": of the handling time, the wait before the handler ran (for a thread, for a core).
            out().printf("%-36s %10s %10s %10s %10s %10s %10s %15s%n", "method", "calls", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us",
                    "queued p99 us");
            for (MethodHandlingTime m : r.getMethodsList()) {
                out().printf("%-36s %10d %10.0f %10.0f %10.0f %10.0f %10.0f %15.0f%n", m.getMethod(), m.getCalls(),
                        m.getP50Us(), m.getP90Us(), m.getP99Us(), m.getP999Us(), m.getMaxUs(), m.getQueuedP99Us());
            }
        }
        return 0;
    }
}
