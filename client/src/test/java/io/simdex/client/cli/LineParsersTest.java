package io.simdex.client.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.simdex.client.Doc;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LineParsersTest {
    @Test
    void jsonl_fingerprintAndText_fingerprintWins() {
        assertEquals(Doc.of("a", 1), JsonlLine.parse("{\"id\":\"a\",\"fingerprint\":\"0x1\",\"text\":\"t\"}"));
    }

    @Test
    void jsonl_nullFingerprint_usesText() {
        assertEquals(Doc.ofText("a", "t"), JsonlLine.parse("{\"id\":\"a\",\"fingerprint\":null,\"text\":\"t\"}"));
    }

    @Test
    void jsonl_numberFingerprintOfSixteenDigits_readAsDecimal() {
        assertEquals(Doc.of("a", 1234567890123456L), JsonlLine.parse("{\"id\":\"a\",\"fingerprint\":1234567890123456}"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"fingerprint\":\"01\"}|missing \"id\"",
        "{\"id\":\"a\"}|needs \"fingerprint\" or \"text\"",
        "{\"id\":\"a\",\"fingerprint\":-1}|must be an integer in 0..18446744073709551615",
        "{\"id\":\"a\",\"fingerprint\":1.5}|must be an integer",
        "{\"id\":\"a\",\"text\":5}|\"text\" must be a string",
        "{\"id\":1.5,\"text\":\"t\"}|\"id\" must be a string or an integer",
        "[1,2]|expected a JSON object",
        "{\"id\":\"a\",\"text\":\"t\"} {}|malformed JSON",
        "{'id':'a'}|malformed JSON at column",
    })
    void jsonl_badLine_explains(String line, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JsonlLine.parse(line));
        assertEquals(true, e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void tsv_decimalSecondColumn_isText() {
        assertEquals(Doc.ofText("a", "123"), TsvLine.parse("a\t123"));
    }

    @Test
    void inputFormat_byExtension_knownAndUnknown() {
        assertEquals(InputFormat.JSONL, InputFormat.byExtension(Path.of("x/Y.NDJSON")));
        assertEquals(InputFormat.TSV, InputFormat.byExtension(Path.of("y.txt")));
        assertEquals(null, InputFormat.byExtension(Path.of("noext")));
    }
}
