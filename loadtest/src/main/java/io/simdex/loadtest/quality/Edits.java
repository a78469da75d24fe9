package io.simdex.loadtest.quality;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The edit operations that turn a document into a near-duplicate copy, for one language and
 * one seeded random source. Each keeps the text's layout (whitespace, punctuation) except where
 * changing it is the edit, and is deterministic for a given seed.
 *
 * <p>English edits work on whitespace-separated words, choosing only words with a letter;
 * Chinese word edits work on spans of two adjacent Han characters. Inserted and substituted
 * words come from a fixed vocabulary.
 */
final class Edits {
    private static final Pattern TOKENS = Pattern.compile("\\S+|\\s+");
    private static final Pattern EN_SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+");
    private static final Pattern ZH_SENTENCE_END = Pattern.compile("(?<=[。！？；])\\s*");
    private static final Pattern CLAUSE_END = Pattern.compile("(?<=[,;:，、；：])\\s*");
    private static final String[] EN_VOCABULARY = {
        "harbor", "violet", "museum", "orchard", "lantern", "glacier", "pepper", "canyon", "meadow", "saddle",
        "thunder", "quartz", "ribbon", "falcon", "tundra", "walnut", "compass", "velvet", "cobalt", "marble"};
    private static final String[] ZH_VOCABULARY = {
        "桥梁", "迅速", "冬季", "森林", "港口", "灯笼", "钢琴", "草原", "河流", "城市",
        "故事", "音乐", "天气", "朋友", "学校", "花园", "星星", "海洋", "苹果", "火车"};
    private static final String EN_FOOTER = "Share this page on Facebook, Twitter or by email. Copyright 2024 Example"
            + " Media Group. All rights reserved. Terms of use and privacy policy apply. Sign up for our newsletter"
            + " to get the latest stories delivered to your inbox every morning. Advertisement. Related articles you"
            + " may have missed this week. Follow us on social media for more updates and news from around the world.";
    private static final String ZH_FOOTER = "分享到微信朋友圈和微博。版权所有，未经授权禁止转载。本文来源于网络，仅供学习交流使用，"
            + "如有侵权请联系删除。更多精彩内容请关注我们的公众号，每天为您推送最新资讯。责任编辑：王小明。广告合作请联系客服热线。"
            + "相关阅读推荐：热门文章排行榜，猜你喜欢的好文章都在这里。";
    private static final String[] EN_PUNCTUATION = {",", ";", "!", "...", ":"};
    private static final String HALF_PUNCT = ",.:;!?()";
    private static final String FULL_PUNCT = "，。：；！？（）";

    private final Language language;
    private final SplittableRandom random;

    Edits(Language language, SplittableRandom random) {
        this.language = language;
        this.random = random;
    }

    /** Applies {@code count} operations of {@code kind}. */
    String apply(EditKind kind, String text, int count) {
        return switch (kind) {
            case SUBSTITUTE -> substitute(text, count);
            case INSERT -> insert(text, count);
            case DELETE -> delete(text, count);
            case REORDER -> reorder(text, count);
            case NOISE -> noise(text, count);
            case BOILERPLATE -> appendBoilerplate(text, count);
        };
    }

    /** Replaces {@code n} distinct words (or two-character spans) by vocabulary words not equal to them. */
    String substitute(String text, int n) {
        if (language == Language.CHINESE) {
            StringBuilder b = new StringBuilder(text);
            for (int at : hanPairs(text, n)) {
                String old = b.substring(at, at + 2);
                b.replace(at, at + 2, pick(ZH_VOCABULARY, old));
            }
            return b.toString();
        }
        List<String> tokens = tokens(text);
        for (int at : sample(letterWords(tokens), n)) {
            tokens.set(at, pick(EN_VOCABULARY, tokens.get(at)));
        }
        return String.join("", tokens);
    }

    /** Inserts {@code n} vocabulary words (or two-character words) at random places. */
    String insert(String text, int n) {
        if (language == Language.CHINESE) {
            StringBuilder b = new StringBuilder(text);
            for (int i = 0; i < n; i++) {
                List<Integer> han = hanPositions(b);
                int at = han.isEmpty() ? b.length() : han.get(random.nextInt(han.size()));
                b.insert(at, pick(ZH_VOCABULARY, ""));
            }
            return b.toString();
        }
        List<String> tokens = tokens(text);
        for (int i = 0; i < n; i++) {
            List<Integer> words = letterWords(tokens);
            int at = words.isEmpty() ? tokens.size() : words.get(random.nextInt(words.size()));
            tokens.add(at, " ");
            tokens.add(at, pick(EN_VOCABULARY, ""));
        }
        return String.join("", tokens);
    }

    /** Deletes {@code n} distinct words (or two-character spans), never all of them. */
    String delete(String text, int n) {
        if (language == Language.CHINESE) {
            List<Integer> spans = hanPairs(text, Math.min(n, Language.hanCount(text) / 2 - 1));
            StringBuilder b = new StringBuilder(text);
            spans.stream().sorted((a, c) -> c - a).forEach(at -> b.delete(at, at + 2));
            return b.toString();
        }
        List<String> tokens = tokens(text);
        List<Integer> words = letterWords(tokens);
        List<Integer> chosen = new ArrayList<>(sample(words, Math.min(n, words.size() - 1)));
        chosen.sort((a, c) -> c - a);
        for (int at : chosen) {
            boolean spaceAfter = at + 1 < tokens.size() && tokens.get(at + 1).isBlank();
            tokens.remove(at);
            if (spaceAfter) {
                tokens.remove(at);
            } else if (at > 0 && tokens.get(at - 1).isBlank()) {
                tokens.remove(at - 1);
            }
        }
        return String.join("", tokens);
    }

    /**
     * Swaps two sentences {@code n} times; a text of one sentence swaps clauses, and one of a
     * single clause swaps its halves. Separators stay where they were.
     */
    String reorder(String text, int n) {
        Units units = Units.split(text, language == Language.ENGLISH ? EN_SENTENCE_END : ZH_SENTENCE_END);
        if (units.parts.size() < 2) {
            units = Units.split(text, CLAUSE_END);
        }
        if (units.parts.size() < 2) {
            units = halves(text);
        }
        for (int s = 0; s < n && units.parts.size() >= 2; s++) {
            int i = random.nextInt(units.parts.size());
            int j = random.nextInt(units.parts.size() - 1);
            j = j >= i ? j + 1 : j;
            String t = units.parts.get(i);
            units.parts.set(i, units.parts.get(j));
            units.parts.set(j, t);
        }
        return units.join();
    }

    /** {@code n} case, punctuation or whitespace changes; letters and digits stay as they are, up to case. */
    String noise(String text, int n) {
        return language == Language.ENGLISH ? englishNoise(text, n) : chineseNoise(text, n);
    }

    /** Appends a footer of {@code n} words (English) or Han characters (Chinese) on a new line. */
    String appendBoilerplate(String text, int n) {
        StringBuilder footer = new StringBuilder();
        if (language == Language.ENGLISH) {
            String[] words = EN_FOOTER.split(" ");
            for (int i = 0; i < n; i++) {
                footer.append(i == 0 ? "" : " ").append(words[i % words.length]);
            }
        } else {
            int han = 0;
            for (int i = 0; han < n; i = (i + 1) % ZH_FOOTER.length()) {
                char c = ZH_FOOTER.charAt(i);
                footer.append(c);
                han += Language.isHan(c) ? 1 : 0;
            }
        }
        return text + "\n" + footer;
    }

    private String englishNoise(String text, int n) {
        List<String> tokens = tokens(text);
        for (int i = 0; i < n; i++) {
            List<Integer> words = letterWords(tokens);
            if (words.isEmpty()) {
                break;
            }
            int at = words.get(random.nextInt(words.size()));
            String w = tokens.get(at);
            switch (random.nextInt(4)) {
                case 0 -> tokens.set(at, recase(w));
                case 1 -> tokens.set(at, w + EN_PUNCTUATION[random.nextInt(EN_PUNCTUATION.length)]);
                case 2 -> tokens.set(at, stripTrailingPunctuation(w).equals(w) ? recase(w) : stripTrailingPunctuation(w));
                default -> tokens.add(at, random.nextBoolean() ? "  " : "\n");
            }
        }
        return String.join("", tokens);
    }

    private String chineseNoise(String text, int n) {
        StringBuilder b = new StringBuilder(text);
        for (int i = 0; i < n; i++) {
            List<Integer> han = hanPositions(b);
            if (han.isEmpty()) {
                break;
            }
            int at = han.get(random.nextInt(han.size()));
            int op = random.nextInt(3);
            int punct = op == 0 ? punctuationAt(b) : -1;
            if (punct >= 0) {
                char c = b.charAt(punct);
                int half = HALF_PUNCT.indexOf(c);
                b.setCharAt(punct, half >= 0 ? FULL_PUNCT.charAt(half) : HALF_PUNCT.charAt(FULL_PUNCT.indexOf(c)));
            } else if (op == 1) {
                b.insert(at, random.nextBoolean() ? "！" : "～");
            } else {
                b.insert(at, random.nextBoolean() ? " " : "\n");
            }
        }
        return b.toString();
    }

    /** A random position of a punctuation mark this noise can swap between widths, or -1. */
    private int punctuationAt(StringBuilder b) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < b.length(); i++) {
            if (HALF_PUNCT.indexOf(b.charAt(i)) >= 0 || FULL_PUNCT.indexOf(b.charAt(i)) >= 0) {
                at.add(i);
            }
        }
        return at.isEmpty() ? -1 : at.get(random.nextInt(at.size()));
    }

    private String recase(String w) {
        String upper = w.toUpperCase();
        String lower = w.toLowerCase();
        String title = lower.isEmpty() ? lower : Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
        for (String candidate : random.nextBoolean() ? new String[] {upper, title, lower} : new String[] {title, lower, upper}) {
            if (!candidate.equals(w)) {
                return candidate;
            }
        }
        return upper;
    }

    private static String stripTrailingPunctuation(String w) {
        int end = w.length();
        while (end > 1 && !Character.isLetterOrDigit(w.charAt(end - 1))) {
            end--;
        }
        return w.substring(0, end);
    }

    private Units halves(String text) {
        Units u = new Units();
        if (language == Language.ENGLISH) {
            String[] words = text.strip().split("\\s+");
            int mid = words.length / 2;
            u.parts.add(String.join(" ", Arrays.copyOfRange(words, 0, mid)));
            u.separators.add(" ");
            u.parts.add(String.join(" ", Arrays.copyOfRange(words, mid, words.length)));
        } else {
            int mid = text.length() / 2;
            u.parts.add(text.substring(0, mid));
            u.separators.add("");
            u.parts.add(text.substring(mid));
        }
        return u;
    }

    static List<String> tokens(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = TOKENS.matcher(text);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    private static List<Integer> letterWords(List<String> tokens) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).chars().anyMatch(Character::isLetter)) {
                out.add(i);
            }
        }
        return out;
    }

    private static List<Integer> hanPositions(CharSequence text) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
            if (Language.isHan(text.charAt(i))) {
                out.add(i);
            }
        }
        return out;
    }

    /** Up to {@code n} non-overlapping starts of two adjacent Han characters, random. */
    private List<Integer> hanPairs(String text, int n) {
        List<Integer> starts = new ArrayList<>();
        for (int i = 0; i + 1 < text.length(); i++) {
            if (Language.isHan(text.charAt(i)) && Language.isHan(text.charAt(i + 1))) {
                starts.add(i);
            }
        }
        List<Integer> chosen = new ArrayList<>();
        for (int at : sample(starts, starts.size())) {
            if (chosen.size() >= n) {
                break;
            }
            if (chosen.stream().noneMatch(c -> Math.abs(c - at) < 2)) {
                chosen.add(at);
            }
        }
        return chosen;
    }

    /** {@code n} distinct elements of {@code from} in random order (all of them if fewer). */
    private List<Integer> sample(List<Integer> from, int n) {
        List<Integer> pool = new ArrayList<>(from);
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n && !pool.isEmpty(); i++) {
            out.add(pool.remove(random.nextInt(pool.size())));
        }
        return out;
    }

    private String pick(String[] vocabulary, String not) {
        String w;
        do {
            w = vocabulary[random.nextInt(vocabulary.length)];
        } while (w.equalsIgnoreCase(not));
        return w;
    }

    /** A text cut into parts with the separators between them kept apart, so parts can move. */
    private static final class Units {
        final List<String> parts = new ArrayList<>();
        final List<String> separators = new ArrayList<>();

        static Units split(String text, Pattern boundary) {
            Units u = new Units();
            Matcher m = boundary.matcher(text);
            int start = 0;
            while (m.find()) {
                if (m.end() >= text.length() || m.start() == start) {
                    continue;
                }
                u.parts.add(text.substring(start, m.start()));
                u.separators.add(m.group());
                start = m.end();
            }
            u.parts.add(text.substring(start));
            return u;
        }

        String join() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < parts.size(); i++) {
                b.append(parts.get(i)).append(i < separators.size() ? separators.get(i) : "");
            }
            return b.toString();
        }
    }
}
