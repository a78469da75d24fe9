package io.simdex.core.text;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The articles under src/test/resources/io/simdex/core/text, read as UTF-8. */
final class TestTexts {
    /** About 320 words: a city council votes to restore a creek's floodplain. */
    static final String RIVER_EN = load("river-en.txt");
    /** About 310 words: a family bakery wins a bread prize. */
    static final String BAKERY_EN = load("bakery-en.txt");
    /** About 415 Han characters: a metro line extension opens. */
    static final String METRO_ZH = load("metro-zh.txt");
    /** About 315 Han characters: tea farmers at the spring harvest. */
    static final String TEA_ZH = load("tea-zh.txt");

    private TestTexts() {
    }

    /** {@code text} with its one occurrence of {@code from} replaced by {@code to}. */
    static String edit(String text, String from, String to) {
        int at = text.indexOf(from);
        if (at < 0 || text.indexOf(from, at + 1) >= 0) {
            throw new IllegalArgumentException("edit target must occur exactly once: " + from);
        }
        return text.substring(0, at) + to + text.substring(at + from.length());
    }

    private static String load(String name) {
        try (InputStream in = TestTexts.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
