package io.simdex.core.text;

/**
 * Sorts code points into the classes the tokenizers split on: word characters (letters and
 * digits of alphabetic scripts), the four CJK scripts, combining marks, and everything else.
 * A token is a maximal run of one class; "everything else" separates tokens and is dropped.
 *
 * <h2>Design</h2>
 * Han, hiragana, katakana and Hangul are kept apart because only Han runs need a dictionary
 * segmenter; in Japanese the script changes are themselves word boundaries. The prolonged
 * sound mark {@code ー} belongs to script COMMON in Unicode but lives inside katakana words, so
 * it is classed as katakana. Combining marks extend a word run (Indic vowel signs) and are
 * dropped anywhere else. ASCII and the main CJK block take a fast path before the binary search
 * in {@link Character.UnicodeScript#of}.
 */
final class CharClass {
    static final int OTHER = 0;
    static final int WORD = 1;
    static final int MARK = 2;
    static final int HAN = 3;
    static final int HIRAGANA = 4;
    static final int KATAKANA = 5;
    static final int HANGUL = 6;

    private static final int ASCII_END = 0x80;
    /** Below Hangul Jamo no code point is CJK, so the script lookup can be skipped. */
    private static final int FIRST_CJK_CANDIDATE = 0x1100;
    private static final int CJK_UNIFIED_START = 0x4E00;
    private static final int CJK_UNIFIED_END = 0x9FFF;
    private static final int PROLONGED_SOUND_MARK = 0x30FC;

    private CharClass() {
    }

    static int of(int cp) {
        if (cp < ASCII_END) {
            return isLetterOrDigit((char) cp) ? WORD : OTHER;
        }
        if (cp >= CJK_UNIFIED_START && cp <= CJK_UNIFIED_END) {
            return HAN;
        }
        if (cp >= FIRST_CJK_CANDIDATE) {
            int cjk = cjkClass(cp);
            if (cjk != OTHER) {
                return cjk;
            }
        }
        if (Character.isLetterOrDigit(cp)) {
            return WORD;
        }
        int type = Character.getType(cp);
        return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK ? MARK : OTHER;
    }

    /**
     * {@link Character#isLetterOrDigit(char)}, with ASCII decided without Character's tables:
     * the shingle and letter counts of short texts test every char of a text with it.
     */
    static boolean isLetterOrDigit(char c) {
        return c < ASCII_END ? (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') : Character.isLetterOrDigit(c);
    }

    /** Whether a class is one of the four CJK scripts. */
    static boolean isCjk(int charClass) {
        return charClass >= HAN;
    }

    /** Whether a code point of class {@code next} continues a run of class {@code run}. */
    static boolean continues(int run, int next) {
        return next == run || (next == MARK && run == WORD);
    }

    /**
     * End (exclusive char index) of the run of class {@code runClass} in {@code s} that goes on
     * at index {@code from}.
     */
    static int runEnd(String s, int from, int runClass) {
        int i = from;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            if (!continues(runClass, of(cp))) {
                break;
            }
            i += Character.charCount(cp);
        }
        return i;
    }

    private static int cjkClass(int cp) {
        if (cp == PROLONGED_SOUND_MARK) {
            return KATAKANA;
        }
        switch (Character.UnicodeScript.of(cp)) {
            case HAN:
                return HAN;
            case HIRAGANA:
                return HIRAGANA;
            case KATAKANA:
                return KATAKANA;
            case HANGUL:
                return HANGUL;
            default:
                return OTHER;
        }
    }
}
