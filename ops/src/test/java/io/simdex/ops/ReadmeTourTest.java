package io.simdex.ops;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReadmeTourTest {
    @TempDir
    Path dir;

    @Test
    void commands_indentedBlocksOfTheTourSection_linesWithoutComments() throws Exception {
        Path readme = dir.resolve("README.md");
        Files.writeString(readme, """
                # x

                    before the tour
                ## A short tour

                Prose:

                    ops/bin/simdex stats      # a comment
                    # a comment line

                    grpcurl -plaintext -d '{"a":"#1"}' localhost:7411 list
                More prose
                    still prose, no blank line before it

                    cat a | b "x # y" > c
                ## Next

                    after the tour
                """);
        assertEquals(List.of("ops/bin/simdex stats", "grpcurl -plaintext -d '{\"a\":\"#1\"}' localhost:7411 list",
                "cat a | b \"x # y\" > c"), ReadmeTour.commands(readme));
    }

    @Test
    void withTarget_afterTheSubcommandWords() {
        assertEquals("ops/bin/simdex urls check --target h:1 --job j https://a.cn/1",
                ReadmeTour.withTarget("ops/bin/simdex urls check --job j https://a.cn/1", "h:1"));
        assertEquals("ops/bin/simdex load --target h:1 docs.jsonl", ReadmeTour.withTarget("ops/bin/simdex load docs.jsonl", "h:1"));
        assertEquals("ops/bin/simdex collections list --target h:1", ReadmeTour.withTarget("ops/bin/simdex collections list", "h:1"));
        assertEquals("cat u | ops/bin/simdex urls check --target h:1 --file - > t",
                ReadmeTour.withTarget("cat u | ops/bin/simdex urls check --file - > t", "h:1"));
    }

    @Test
    void withTarget_noSubcommand_unchanged() {
        assertEquals("ops/bin/simdex --help", ReadmeTour.withTarget("ops/bin/simdex --help", "h:1"));
    }

    @Test
    void words_quotesGroupAndAreRemoved() {
        assertEquals(List.of("grpcurl", "-d", "{\"a\": 1}", "x", "a b", ""),
                ReadmeTour.words("grpcurl -d '{\"a\": 1}'  x \"a b\" ''"));
        assertThrows(IllegalArgumentException.class, () -> ReadmeTour.words("a 'b"));
    }

    @Test
    void grpcurlParse_readmeSyntax() {
        GrpcurlCall call = GrpcurlCall.parse("grpcurl -plaintext -d '{\"max_distance\":3}' localhost:7411 simdex.v1.Simdex/Query");
        assertEquals(new GrpcurlCall("localhost:7411", "{\"max_distance\":3}", "simdex.v1.Simdex/Query"), call);
        assertEquals(new GrpcurlCall("localhost:7411", null, "list"), GrpcurlCall.parse("grpcurl -plaintext localhost:7411 list"));
    }

    @Test
    void grpcurlParse_badLine_rejected() {
        assertThrows(IllegalArgumentException.class, () -> GrpcurlCall.parse("grpcurl localhost:7411 list"));
        assertThrows(IllegalArgumentException.class, () -> GrpcurlCall.parse("grpcurl -plaintext -x localhost:7411 list"));
        assertThrows(IllegalArgumentException.class, () -> GrpcurlCall.parse("grpcurl -plaintext localhost:7411 Simdex/Query"));
        assertThrows(IllegalArgumentException.class, () -> GrpcurlCall.parse("grpcurl -plaintext simdex.v1.Simdex/Query"));
    }
}
