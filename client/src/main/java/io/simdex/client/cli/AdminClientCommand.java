package io.simdex.client.cli;

import com.google.gson.JsonElement;
import io.simdex.client.SimdexAdmin;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * An {@code admin} subcommand: opens a {@link SimdexAdmin} from the shared connection options,
 * runs {@link #execute}, and closes it however it ends. As with {@link ClientCommand},
 * exceptions are left to {@link SimdexCli}.
 */
abstract class AdminClientCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    private AdminFactory admins = AdminFactory.GRPC;

    /** Replaces how the admin client is opened; {@link SimdexCli} calls this before running. */
    void useAdmins(AdminFactory admins) {
        this.admins = admins;
    }

    @Override
    public final Integer call() throws Exception {
        try (SimdexAdmin admin = admins.open(connection.target, connection.clientOptions())) {
            return execute(admin);
        }
    }

    /** Does the command's work; returns the exit code. */
    abstract int execute(SimdexAdmin admin) throws Exception;

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
