package io.simdex.loadtest.gen;

import java.util.SplittableRandom;

/**
 * Synthetic English and Chinese documents, and near-duplicates of them, for text workloads and
 * the SimHash benchmark. Words are drawn from fixed vocabularies with a skewed (roughly Zipfian)
 * choice, so term frequencies look like prose rather than like uniform noise.
 *
 * <p>A near-duplicate replaces a few words of its source; how many bits its fingerprint differs
 * by depends on the text and is not promised here (tests of recall use {@link Fingerprints}).
 *
 * <p>Two vocabularies: the small fixed one ({@link #TextCorpus(long)}: 140 English words, 90
 * two-character Chinese words), on which unrelated texts of one language lie close together
 * (a crowd of SimHash candidates per text), and the wide one ({@link #wide(long)}: the built-in
 * idf tables' words and Han characters, documents with topics, see {@link WideVocabulary}), on
 * which they lie about as far apart as real texts do.
 */
public final class TextCorpus {
    /** Kinds of text. */
    public enum Language { ENGLISH, CHINESE }

    private static final String[] ENGLISH = (
            "the of and to in a is that for it as was with be by on not he this are or his from at which "
            + "but have an they you were her she there been one all we their has would when if so no "
            + "data index query shard router cluster document fingerprint distance table bucket page "
            + "store memory disk latency throughput request response batch probe match near duplicate "
            + "system network server client message stream storage engine search result order time "
            + "world city river market school water paper story report family history science music "
            + "company government country people change money health energy light power garden "
            + "morning evening winter summer season window letter village mountain island harbour "
            + "simple careful quiet rapid bright heavy narrow ancient modern common local public").split(" ");

    private static final String[] CHINESE = (
            "我们 数据 索引 查询 文档 指纹 距离 服务器 集群 网络 系统 存储 内存 磁盘 延迟 吞吐 请求 响应 "
            + "批量 结果 时间 世界 城市 河流 市场 学校 历史 科学 音乐 公司 政府 国家 人民 变化 健康 "
            + "能源 花园 早晨 晚上 冬天 夏天 季节 窗户 信件 村庄 高山 岛屿 港口 简单 仔细 安静 快速 "
            + "明亮 古老 现代 公共 发展 经济 社会 文化 技术 研究 问题 方法 工作 生活 环境 教育 "
            + "新闻 报道 记者 读者 作者 图书 电影 音乐会 比赛 运动 医生 医院 学生 老师 朋友").split(" ");

    private final SplittableRandom random;
    private final boolean wide;

    /** Texts of the small fixed vocabularies. */
    public TextCorpus(long seed) {
        this(seed, false);
    }

    private TextCorpus(long seed, boolean wide) {
        this.random = new SplittableRandom(seed);
        this.wide = wide;
    }

    /** Texts of the built-in idf tables' vocabularies, each document with a topic of its own. */
    public static TextCorpus wide(long seed) {
        return new TextCorpus(seed, true);
    }

    /** A document of {@code words} words in {@code language}, in sentences. */
    public String document(Language language, int words) {
        String[] vocabulary = vocabulary(language);
        WideVocabulary w = wide ? wideVocabulary(language) : null;
        String[] topic = wide ? w.topic(random) : null;
        StringBuilder out = new StringBuilder(words * (language == Language.ENGLISH ? 7 : 3));
        int sentence = 0;
        for (int i = 0; i < words; i++) {
            String word = !wide ? vocabulary[skewed(vocabulary.length)]
                    : language == Language.ENGLISH ? w.word(random, topic) : w.word(random, topic) + w.word(random, topic);
            appendWord(out, language, word, sentence == 0);
            sentence++;
            if (sentence >= 8 + random.nextInt(10) || i == words - 1) {
                if (language == Language.ENGLISH) {
                    out.setLength(out.length() - 1);
                    out.append(". ");
                } else {
                    out.append('。');
                }
                sentence = 0;
            }
        }
        return out.toString().strip();
    }

    /** {@code source} with {@code edits} words replaced by other words of the same vocabulary. */
    public String nearDuplicate(String source, Language language, int edits) {
        return language == Language.ENGLISH ? replaceEnglishWords(source, edits) : replaceChineseWords(source, edits);
    }

    /** Replaces whole space-separated words, keeping their trailing punctuation. */
    private String replaceEnglishWords(String source, int edits) {
        String[] tokens = source.split(" ");
        for (int e = 0; e < edits; e++) {
            int i = random.nextInt(tokens.length);
            String t = tokens[i];
            int letters = 0;
            while (letters < t.length() && Character.isLetter(t.charAt(letters))) {
                letters++;
            }
            String word = wide ? WideVocabulary.english().zipf(random) : ENGLISH[random.nextInt(ENGLISH.length)];
            tokens[i] = word + t.substring(letters);
        }
        return String.join(" ", tokens);
    }

    /** Replaces occurrences of vocabulary words (Chinese has no spaces to split on). */
    private String replaceChineseWords(String source, int edits) {
        if (wide) {
            return replaceHanPairs(source, edits);
        }
        StringBuilder out = new StringBuilder(source);
        for (int e = 0; e < edits; e++) {
            String replacement = CHINESE[random.nextInt(CHINESE.length)];
            for (int tries = 0; tries < 20; tries++) {
                String word = CHINESE[random.nextInt(CHINESE.length)];
                int at = out.indexOf(word, random.nextInt(Math.max(1, out.length())));
                if (at >= 0) {
                    out.replace(at, at + word.length(), replacement);
                    break;
                }
            }
        }
        return out.toString();
    }

    /** Replaces two adjacent Han characters (a word of {@link #document}) at random places. */
    private String replaceHanPairs(String source, int edits) {
        StringBuilder out = new StringBuilder(source);
        for (int e = 0; e < edits; e++) {
            for (int tries = 0; tries < 20; tries++) {
                int at = random.nextInt(Math.max(1, out.length() - 1));
                if (isHan(out.charAt(at)) && isHan(out.charAt(at + 1))) {
                    WideVocabulary w = WideVocabulary.chinese();
                    out.replace(at, at + 2, w.zipf(random) + w.zipf(random));
                    break;
                }
            }
        }
        return out.toString();
    }

    private static boolean isHan(char c) {
        return Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN;
    }

    private static WideVocabulary wideVocabulary(Language language) {
        return language == Language.ENGLISH ? WideVocabulary.english() : WideVocabulary.chinese();
    }

    private void appendWord(StringBuilder out, Language language, String word, boolean sentenceStart) {
        if (language == Language.ENGLISH) {
            out.append(sentenceStart ? Character.toUpperCase(word.charAt(0)) + word.substring(1) : word).append(' ');
        } else {
            out.append(word);
            if (!sentenceStart && random.nextInt(6) == 0) {
                out.append('，');
            }
        }
    }

    /** An index skewed towards 0 (the smaller of two uniform draws), so early words are common ones. */
    private int skewed(int n) {
        return Math.min(random.nextInt(n), random.nextInt(n));
    }

    private static String[] vocabulary(Language language) {
        return language == Language.ENGLISH ? ENGLISH : CHINESE;
    }
}
