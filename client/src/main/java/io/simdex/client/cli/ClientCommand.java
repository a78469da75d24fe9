package io.simdex.client.cli;

import com.google.gson.JsonElement;
import io.simdex.client.SimdexClient;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A subcommand that talks to the server: opens a client from the connection options, runs
 * {@link #execute}, and closes the client however it ends. Exceptions are left to
 * {@link SimdexCli}, which turns them into messages and exit codes.
 */
abstract class ClientCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    private ClientFactory clients = ClientFactory.GRPC;

    /** Replaces how the client is opened; {@link SimdexCli} calls this before running. */
    void useClients(ClientFactory clients) {
        this.clients = clients;
    }

    @Override
    public final Integer call() throws Exception {
        try (SimdexClient client = clients.open(connection.target, connection.clientOptions())) {
            return execute(client);
        }
    }

    /** Does the command's work; returns the exit code. */
    abstract int execute(SimdexClient client) throws Exception;

    final boolean json() {
        return connection.json;
    }

    final PrintWriter out() {
        return spec.commandLine().getOut();
    }

    final PrintWriter err() {
        return spec.commandLine().getErr();
    }

    final void printJson(JsonElement value) {
        out().println(Json.GSON.toJson(value));
    }
}
