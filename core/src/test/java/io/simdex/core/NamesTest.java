package io.simdex.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class NamesTest {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    @Test
    void isValid_agreesWithTheDocumentedPattern() {
        Random r = new Random(3);
        String alphabet = "aZ09_-. /é\u4e2d\u0000";
        List<String> cases = new ArrayList<>(Arrays.asList("", "default", "a", "A-b_9", "a".repeat(64), "a".repeat(65), "a b", "naïve", "x\n"));
        for (int i = 0; i < 5000; i++) {
            StringBuilder b = new StringBuilder();
            int len = r.nextInt(70);
            for (int j = 0; j < len; j++) {
                b.append(r.nextInt(10) < 8 ? (char) ('a' + r.nextInt(26)) : alphabet.charAt(r.nextInt(alphabet.length())));
            }
            cases.add(b.toString());
        }
        for (String s : cases) {
            assertEquals(NAME.matcher(s).matches(), Names.isValid(s), () -> "'" + s + "'");
        }
    }

    @Test
    void isValid_pathLikeNames_refused() {
        for (String s : List.of("..", ".", "../../victim", "a/b", "a\\b", "urls.jobs", "/abs", "C:", "a\u0000b", "\uff0e\uff0e")) {
            assertFalse(Names.isValid(s), s);
        }
    }

    @Test
    void problem_escapesControlCharactersAndCutsAt64CodePoints() {
        assertEquals("job 'a\\u000ab' must be 1..64 characters of [A-Za-z0-9_-]", Names.problem("job", "a\nb"));
        assertEquals("x".repeat(64), Names.printable("x".repeat(1000)));
    }
}
