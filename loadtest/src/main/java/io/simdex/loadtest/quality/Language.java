package io.simdex.loadtest.quality;

/** The two languages of the evaluation corpus; each edits and compares text in its own units. */
enum Language {
    /** Units are whitespace-separated words. */
    ENGLISH("en"),
    /** Units are Han characters; a "word" edit touches two of them, the usual length of a Chinese word. */
    CHINESE("zh");

    private final String code;

    Language(String code) {
        this.code = code;
    }

    String code() {
        return code;
    }

    /** Whether a code point is a Han character (CJK unified ideographs and their extensions). */
    static boolean isHan(int cp) {
        return Character.UnicodeScript.of(cp) == Character.UnicodeScript.HAN;
    }

    /** Han characters in {@code text}. */
    static int hanCount(String text) {
        return (int) text.codePoints().filter(Language::isHan).count();
    }

    /** Whitespace-separated words in {@code text}. */
    static int wordCount(String text) {
        String t = text.strip();
        return t.isEmpty() ? 0 : t.split("\\s+").length;
    }

    /** The size of {@code text} in this language's units: words, or Han characters. */
    int units(String text) {
        return this == ENGLISH ? wordCount(text) : hanCount(text);
    }
}
