package io.simdex.client.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Lets a command's options come before the command: {@code simdex --target h:7411 -c news stats}
 * is read as {@code simdex stats --target h:7411 -c news}, as a user of git or kubectl writes
 * it. The options belong to the commands (each has its own, with its own defaults), so the
 * leading ones are moved after the command and its subcommands ({@code collections create})
 * and picocli then judges them as that command's: one the command does not have is reported
 * as such.
 */
final class LeadingOptions {
    private LeadingOptions() {
    }

    /** {@code args} with any options before the command moved after it; {@code args} itself when there are none. */
    static String[] moveAfterCommand(CommandLine top, String[] args) {
        int i = 0;
        while (i < args.length && isOption(args[i]) && !top.getCommandSpec().optionsMap().containsKey(args[i])) {
            OptionSpec option = anyOption(top, name(args[i]));
            if (option == null) {
                return args;
            }
            i += takesValue(option, args[i]) ? 2 : 1;
        }
        if (i == 0 || i >= args.length || !top.getSubcommands().containsKey(args[i])) {
            return args;
        }
        // The command, then its subcommands as long as the next word names one.
        CommandLine command = top.getSubcommands().get(args[i]);
        int end = i + 1;
        while (end < args.length && command.getSubcommands().containsKey(args[end])) {
            command = command.getSubcommands().get(args[end++]);
        }
        List<String> moved = new ArrayList<>(args.length);
        moved.addAll(List.of(args).subList(i, end));
        moved.addAll(List.of(args).subList(0, i));
        moved.addAll(List.of(args).subList(end, args.length));
        return moved.toArray(new String[0]);
    }

    private static boolean isOption(String arg) {
        return arg.startsWith("-") && arg.length() > 1 && !arg.equals("--");
    }

    private static String name(String arg) {
        int eq = arg.indexOf('=');
        return eq < 0 ? arg : arg.substring(0, eq);
    }

    private static boolean takesValue(OptionSpec option, String arg) {
        return arg.indexOf('=') < 0 && option.arity().max() > 0;
    }

    /** The option some command under {@code command} declares by {@code name}; null if none does. */
    private static OptionSpec anyOption(CommandLine command, String name) {
        OptionSpec own = command.getCommandSpec().findOption(name);
        if (own != null) {
            return own;
        }
        for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
            OptionSpec found = anyOption(sub.getValue(), name);
            if (found != null) {
                return found;
            }
        }
        return null;
    }
}
