package io.simdex.ops;

import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.simdex.client.cli.SimdexCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README.md's "A short tour", run as written against a freshly started embedded server, every
 * answer checked, so the tour cannot drift from the code.
 *
 * <p>Each command line of the tour's code blocks has an expectation here, keyed by the exact
 * line (trailing comment removed), and the test fails when the two sets differ: a command the
 * README gained needs an expectation, and an expectation whose command left the README goes too.
 * Commands run in README order:
 * <ul>
 *   <li>{@code ops/bin/simdex ...} lines run under {@code sh -c} in a directory where
 *       {@code ops/bin/simdex} is this build's launcher, with {@code --target 127.0.0.1:PORT}
 *       added after the subcommand words (the README's server is on the default port, the
 *       test's on a free one); the input files they name are written there first.</li>
 *   <li>grpcurl lines (a Go tool the build does not have) are parsed by grpcurl's syntax and made as
 *       the same call: the {@code -d} JSON parsed by protobuf's JsonFormat ({@link GrpcurlCall}).</li>
 *   <li>the Python client line is run by {@code .ci/run}; this test checks that it is there.</li>
 * </ul>
 */
class ReadmeTourIT {
    @TempDir
    Path dir;

    private final Map<String, Check> expected = new LinkedHashMap<>();

    @Test
    void readmeTour_runAsWritten_printsWhatTheReadmeSays() throws Exception {
        Path root = TourFiles.repositoryRoot();
        List<String> commands = ReadmeTour.commands(root.resolve("README.md"));
        expectTour();
        expectCollectionsAndUrls();
        expectGrpcurl();
        expectPythonClient(Files.readString(root.resolve(".ci/run")));
        assertSameCommands(commands);

        Path work = TourFiles.workDir(dir, root);
        int port = SimdexProcess.freePort();
        try (SimdexProcess server = SimdexProcess.start(dir.resolve("server.log"), "embedded",
                "--data", dir.resolve("data").toString(), "--port", Integer.toString(port), "--expected", "10000")) {
            server.awaitServing(port, "simdex.v1.Simdex");
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
            try {
                for (String command : commands) {
                    runAndCheck(command, work, "127.0.0.1:" + port, channel);
                }
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            server.stop();
        }
    }

    private void assertSameCommands(List<String> commands) {
        List<String> unexpected = commands.stream().filter(c -> !expected.containsKey(c)).toList();
        List<String> gone = expected.keySet().stream().filter(c -> !commands.contains(c)).toList();
        assertTrue(unexpected.isEmpty() && gone.isEmpty(), "README.md's tour commands and this test's expectations differ."
                + "\nIn README.md, no expectation here:\n  " + String.join("\n  ", unexpected)
                + "\nExpected here, not in README.md:\n  " + String.join("\n  ", gone));
        assertEquals(commands.size(), new HashSet<>(commands).size(), "a tour command appears twice: " + commands);
    }

    private void runAndCheck(String command, Path work, String target, Channel channel) throws Exception {
        Answer answer = null;
        try {
            answer = TourFiles.run(command, work, target, channel);
            expected.get(command).check(answer);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("README command: " + command + (answer == null ? ""
                    : "\nexit " + answer.exitCode() + ", printed:\n" + answer.out() + answer.err()), e);
        }
    }

    private void expectTour() {
        String a1 = "The city council voted on Tuesday to restore the wetlands north of the harbour, ending three years of hearings, lawsuits and petitions";
        String a1Edited = a1.replace("Tuesday", "Wednesday");
        expect("ops/bin/simdex insert --id a1 --text \"" + a1 + "\"", printsExactly("inserted 1 document(s) into default\n"));
        expect("ops/bin/simdex insert --id f1 --fingerprint 0123456789abcdef", printsExactly("inserted 1 document(s) into default\n"));
        expect("ops/bin/simdex query --fingerprint 0123456789abcdee -k 3",
                printsExactly("probe 1 fingerprint 0123456789abcdee: 1 match(es)\n  d=1  0123456789abcdef  f1\n"));
        expect("ops/bin/simdex query --text \"" + a1Edited + "\"", printsMatching(
                "probe 1 text \"" + Pattern.quote(a1Edited) + "\" fingerprint [0-9a-f]{16}: 1 match\\(es\\)\n  d=1  [0-9a-f]{16}  a1  jaccard=[01]\\.[0-9]{2}\n"));
        expect("ops/bin/simdex dedup --id f2 --fingerprint 0123456789abcd0f -k 3",
                printsExactly("duplicate f2 0123456789abcd0f of 1 stored document(s):\n  d=3  0123456789abcdef  f1\n"));
        expect("ops/bin/simdex load docs.jsonl", printsMatching("loaded 2 documents in [0-9.]+ s \\([0-9.]+ docs/s\\)\n"));
        // a1, f1 and the two loaded documents; f2 was a duplicate.
        expect("ops/bin/simdex stats", printsMatching(
                "collection: +default\ndocuments: +4\nfingerprints: +4\nshards: +4\n(?s).*"));
        expect("ops/bin/simdex lookup f1 a2", printsExactly("f1\t0123456789abcdef\na2\tnot stored\n"));
        expect("ops/bin/simdex delete a1 a2", printsExactly("deleted 1 document(s) from default, 1 not found\n"));
        expect("ops/bin/simdex export --out all.jsonl", a -> {
            assertEquals("exported 3 document(s) from default to all.jsonl\n", a.out());
            List<String> lines = Files.readAllLines(a.dir().resolve("all.jsonl"));
            assertEquals(3, lines.size(), lines.toString());
            assertTrue(lines.contains("{\"id\":\"f1\",\"fingerprint\":\"0123456789abcdef\"}"), lines.toString());
            assertTrue(lines.contains("{\"id\":\"d1\",\"fingerprint\":\"fedcba9876543210\"}"), lines.toString());
        });
        expect("ops/bin/simdex handling-times", ReadmeTourIT::checkHandlingTimes);
        expect("ops/bin/simdex --help", ReadmeTourIT::checkHelp);
    }

    private void expectCollectionsAndUrls() {
        expect("ops/bin/simdex collections create news --retention 2d --generation 6h --tokenization char-ngrams --max-distance 3",
                printsExactly("created news\n"));
        expect("ops/bin/simdex collections create posts --short-text --short-text-min-jaccard 0.6", printsExactly("created posts\n"));
        String created = "\t\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\t";
        expect("ops/bin/simdex collections list", printsMatching(
                "default" + created + "k=3 words han=characters stop-words=kept tf sketch\\(k<=5, k<=7 up to 150 words, jaccard>=0\\.4\\) short-fingerprint\\(<=300 letters, k<=12, jaccard>=0\\.2, blocks=whole, order=products32\\) retention=forever\n"
                + "news" + created + "k=3 char_ngrams\\(3\\) stop-words=kept tf sketch\\(k<=5, k<=7 up to 150 words, jaccard>=0\\.4\\) short-fingerprint\\(<=300 letters, k<=12, jaccard>=0\\.2, blocks=whole, order=products32\\) retention=PT48H/PT6H\n"
                + "posts" + created + "k=3 words han=characters stop-words=kept tf short-text\\(<=200 chars, k<=7, jaccard>=0\\.6\\) sketch\\(k<=5, k<=7 up to 150 words, jaccard>=0\\.4\\) short-fingerprint\\(<=300 letters, k<=12, jaccard>=0\\.2, blocks=whole, order=products32\\) retention=forever\n"));
        expect("ops/bin/simdex collections update news --retention 3d --sketch-min-jaccard 0.5", printsMatching(
                "news" + created + "k=3 char_ngrams\\(3\\) stop-words=kept tf sketch\\(k<=5, k<=7 up to 150 words, jaccard>=0\\.5\\) short-fingerprint\\(<=300 letters, k<=12, jaccard>=0\\.2, blocks=whole, order=products32\\) retention=PT72H/PT6H\n"));
        expect("ops/bin/simdex dedup -c news --id n1 --text \"Heavy rain closed the coast road between the two ferry ports for a second day\"",
                printsMatching("inserted n1 [0-9a-f]{16}\n"));
        expect("ops/bin/simdex collections delete posts", printsExactly("deleted posts\n"));
        expect("ops/bin/simdex urls check --job job_108 --ttl 7d https://a.cn/1 https://a.cn/2",
                printsExactly("https://a.cn/1\nhttps://a.cn/2\n"));
        // urls.txt holds https://a.cn/2 (seen by the line above) and https://a.cn/3.
        expect("cat urls.txt | ops/bin/simdex urls check --job job_108 --file - > to-fetch.txt", a -> {
            printsExactly("").check(a);
            assertEquals("https://a.cn/3\n", Files.readString(a.dir().resolve("to-fetch.txt")), "to-fetch.txt");
        });
        expect("ops/bin/simdex urls check --job job_109 --canonical \"https://b.cn/a/../news?id=7\" \"HTTPS://B.cn:443/news?id=7#top\"",
                printsExactly("https://b.cn/a/../news?id=7\n"));
    }

    private void expectGrpcurl() {
        expect("grpcurl -plaintext localhost:7411 list", printsExactly(
                "grpc.health.v1.Health\ngrpc.reflection.v1.ServerReflection\ngrpc.reflection.v1alpha.ServerReflection\nsimdex.v1.Simdex\n"));
        expect("grpcurl -plaintext -d '{\"documents\":[{\"id\":\"g1\",\"fingerprint\":\"81985529216486895\"}]}' localhost:7411 simdex.v1.Simdex/Insert",
                printsExactly("{\"inserted\":1}"));
        // 81985529216486894 is 0123456789abcdee: f1 and g1 (both 0123456789abcdef) at distance 1.
        String match = "{\"id\":\"%s\",\"fingerprint\":\"81985529216486895\",\"distance\":1,\"similarity\":-1.0}";
        expect("grpcurl -plaintext -d '{\"probes\":[{\"fingerprint\":\"81985529216486894\"}],\"max_distance\":3}' localhost:7411 simdex.v1.Simdex/Query",
                printsExactly("{\"results\":[{\"fingerprint\":\"81985529216486894\",\"matches\":["
                        + match.formatted("f1") + "," + match.formatted("g1") + "],\"totalMatches\":\"2\"}]}"));
        expect("grpcurl -plaintext -d '{\"documents\":[{\"id\":\"g2\",\"text\":\"some text to check\"}],\"max_distance\":3}' localhost:7411 simdex.v1.Simdex/Dedup",
                printsMatching("\\{\"results\":\\[\\{\"id\":\"g2\",\"fingerprint\":\"\\d+\",\"inserted\":true,\"sequence\":\"\\d+\"}]}"));
        expect("grpcurl -plaintext localhost:7411 grpc.health.v1.Health/Check", printsExactly("{\"status\":\"SERVING\"}"));
    }

    /** The README's Python line runs in .ci/run against the smoke server ("$target"). */
    private void expectPythonClient(String ciRun) {
        String line = "client/python/generate.sh && /usr/bin/python3 client/python/example.py localhost:7411";
        expect(line, a -> {
            for (String part : line.split(" && ")) {
                assertTrue(ciRun.contains(part.replace("localhost:7411", "\"$target\"")), ".ci/run runs: " + part);
            }
        });
    }

    private static void checkHandlingTimes(Answer a) {
        assertEquals(0, a.exitCode());
        String[] lines = a.out().split("\n");
        assertTrue(lines[0].matches("method +calls +p50 us +p90 us +p99 us +p99\\.9 us +max us +queued p99 us"), lines[0]);
        Map<String, Integer> calls = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            String[] cells = lines[i].trim().split(" +");
            calls.put(cells[0], Integer.parseInt(cells[1]));
        }
        // Each was made by an earlier process that has exited since, so the server has recorded it.
        for (Map.Entry<String, Integer> e : Map.of("Insert", 2, "Query", 2, "Dedup", 1, "BulkLoad", 1).entrySet()) {
            assertEquals(e.getValue(), calls.get("simdex.v1.Simdex/" + e.getKey()), e.getKey() + " calls in " + calls);
        }
        assertTrue(calls.containsKey("simdex.v1.Simdex/Stats"), "a row for Stats: " + calls);
    }

    /** "every command; --json for scripts": every subcommand listed, and every server command takes --json. */
    private static void checkHelp(Answer a) {
        assertEquals(0, a.exitCode());
        CommandLine cli = new CommandLine(new SimdexCli());
        List<String> names = new ArrayList<>(cli.getSubcommands().keySet());
        names.addAll(new CommandLine(new Main.ServerCommands()).getSubcommands().keySet());
        for (String name : names) {
            assertTrue(Pattern.compile("(?m)^  " + Pattern.quote(name) + "( |$)").matcher(a.out()).find(), "lists " + name);
        }
        List<String> withoutJson = new ArrayList<>();
        leaves(cli, withoutJson);
        assertEquals(List.of(), withoutJson, "commands without --json");
    }

    private static void leaves(CommandLine command, List<String> withoutJson) {
        if (command.getSubcommands().isEmpty() && !command.getCommandName().equals("help")
                && command.getCommandSpec().findOption("--json") == null) {
            withoutJson.add(command.getCommandSpec().qualifiedName());
        }
        command.getSubcommands().values().forEach(sub -> leaves(sub, withoutJson));
    }

    private void expect(String command, Check check) {
        if (expected.put(command, check) != null) {
            throw new IllegalStateException("two expectations for: " + command);
        }
    }

    private static Check printsExactly(String out) {
        return a -> {
            assertEquals(0, a.exitCode(), "exit code");
            assertEquals(out, a.out());
        };
    }

    private static Check printsMatching(String regex) {
        return a -> {
            assertEquals(0, a.exitCode(), "exit code");
            Matcher m = Pattern.compile(regex).matcher(a.out());
            assertTrue(m.matches(), "printed:\n" + a.out() + "\nexpected to match:\n" + regex);
        };
    }

    interface Check {
        void check(Answer answer) throws Exception;
    }

    /** A command's exit code, standard output and error, and the directory it ran in. */
    record Answer(int exitCode, String out, String err, Path dir) {
    }
}
