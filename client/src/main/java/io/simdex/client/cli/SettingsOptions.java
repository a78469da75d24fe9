package io.simdex.client.cli;

import com.google.protobuf.UInt32Value;
import io.simdex.proto.v1.CollectionSettings;
import io.simdex.proto.v1.HanTokens;
import io.simdex.proto.v1.StopWords;
import io.simdex.proto.v1.ShortFingerprintBlocks;
import io.simdex.proto.v1.ShortFingerprintOrder;
import io.simdex.proto.v1.ShortFingerprintSettings;
import io.simdex.proto.v1.ShortTextSettings;
import io.simdex.proto.v1.SketchSettings;
import io.simdex.proto.v1.Tokenization;
import io.simdex.proto.v1.Weighting;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** A collection's settings as command-line options; unset options take the server's defaults. */
final class SettingsOptions {
    @Option(names = "--max-distance", paramLabel = "K", description = "Distance Query and Dedup use when a request gives none, 0..3 (server default 3).")
    Integer maxDistance;

    @Option(names = "--tokenization", paramLabel = "words|char-ngrams", description = "Features: words (HanLP for Chinese) or character n-grams (server default words).")
    String tokenization;

    @Option(names = "--ngram", paramLabel = "N", description = "Characters per n-gram for char-ngrams, 1..16 (server default 3).")
    Integer ngram;

    @Option(names = "--weighting", paramLabel = "tf|tf-idf", description = "Feature weights (server default tf).")
    String weighting;

    @Option(names = "--idf", paramLabel = "FILE", description = "For tf-idf: a file of 'feature<TAB>idf' lines.")
    Path idf;

    @Option(names = "--built-in-idf", description = "tf-idf with the built-in English and Chinese idf table (--idf entries replace"
            + " its own); for words with han tokens characters.")
    boolean builtInIdf;

    @Option(names = "--keep-stop-words", description = "Keep stop words as features (the server's default for new collections).")
    boolean keepStopWords;

    @Option(names = "--drop-stop-words", description = "Drop stop words (the default of collections created before stop_words existed).")
    boolean dropStopWords;

    @Option(names = "--han-tokens", paramLabel = "characters|words",
            description = "Chinese tokens: one per Han character, or HanLP's dictionary words (server default characters).")
    String hanTokens;

    @Option(names = "--retention", paramLabel = "DURATION", description = "Keep documents this long, e.g. 2d, 36h, 90m (default: forever).")
    String retention;

    @Option(names = "--generation", paramLabel = "DURATION", description = "Width of a time generation, e.g. 6h (default: retention / 8, at least 1m).")
    String generation;

    @Option(names = "--short-text", description = "Verify short texts by shingle Jaccard (candidates up to distance 7).")
    boolean shortText;

    @Option(names = "--short-text-max-chars", paramLabel = "N", description = "Texts up to N characters are short (server default 200).")
    Integer shortTextMaxChars;

    @Option(names = "--short-text-distance", paramLabel = "K", description = "Candidate distance for short texts, 0..7 (server default 7).")
    Integer shortTextDistance;

    @Option(names = "--short-text-min-jaccard", paramLabel = "J", description = "Least shingle Jaccard of a duplicate, (0, 1] (server default 0.6).")
    Double shortTextMinJaccard;

    @Option(names = "--short-text-shingle", paramLabel = "N", description = "Characters per shingle, 1..16 (server default 3).")
    Integer shortTextShingle;

    @Option(names = "--sketch", negatable = true, description = "Verify text candidates by stored MinHash sketches, "
            + "candidates up to distance 5 (server default: on).")
    Boolean sketch;

    @Option(names = "--sketch-min-jaccard", paramLabel = "J", description = "Least estimated Jaccard of a duplicate, (0, 1] (server default 0.4).")
    Double sketchMinJaccard;

    @Option(names = "--sketch-distance", paramLabel = "K", description = "Candidate distance for sketch verification, 0..7 (server default 5).")
    Integer sketchDistance;

    @Option(names = "--sketch-wide-distance", paramLabel = "K", description = "Candidate distance for sketch verification of texts "
            + "of at most --sketch-wide-words words, 0..7 (server default 7).")
    Integer sketchWideDistance;

    @Option(names = "--sketch-wide-words", paramLabel = "N", description = "Most words (a Han character is one) of a text that takes "
            + "--sketch-wide-distance, 0..100000 (server default 150).")
    Integer sketchWideWords;

    @Option(names = "--short-fingerprint", negatable = true, description = "Fingerprint short texts by 1-bit MinHash instead of "
            + "SimHash; needs sketches (server default: on where sketches are).")
    Boolean shortFingerprint;

    @Option(names = "--short-fingerprint-letters", paramLabel = "N",
            description = "Texts of up to N letters and digits are short, 1..100000 (server default 300).")
    Integer shortFingerprintLetters;

    @Option(names = "--short-fingerprint-distance", paramLabel = "K",
            description = "Candidate distance of a short text's MinHash fingerprint, 0..12 (server default 12; beyond 7, "
                    + "the candidates the probed buckets hold).")
    Integer shortFingerprintDistance;

    @Option(names = "--short-fingerprint-min-jaccard", paramLabel = "J",
            description = "Least estimated Jaccard of a short text's MinHash candidate, (0, 1] (server default 0.2).")
    Double shortFingerprintMinJaccard;

    /** The values of --short-fingerprint-blocks, as the proto's ShortFingerprintBlocks. */
    enum Blocks {
        partitioned(ShortFingerprintBlocks.PARTITIONED_BLOCKS), whole(ShortFingerprintBlocks.WHOLE_TEXT_BLOCKS);

        final ShortFingerprintBlocks proto;

        Blocks(ShortFingerprintBlocks proto) {
            this.proto = proto;
        }

        /** How a collection's settings show {@code blocks} (unset: whole, as the server reads it). */
        static String name(ShortFingerprintBlocks blocks) {
            return blocks == ShortFingerprintBlocks.PARTITIONED_BLOCKS ? partitioned.name() : whole.name();
        }
    }

    @Option(names = "--short-fingerprint-blocks", paramLabel = "partitioned|whole",
            description = "Each 16-bit block of a short text's MinHash fingerprint over one of four groups of its shingles "
                    + "(partitioned: finds more edited copies of short Chinese texts) or over all of them (server default whole).")
    Blocks shortFingerprintBlocks;

    /** The values of --short-fingerprint-order, as the proto's ShortFingerprintOrder. */
    enum Order {
        products32(ShortFingerprintOrder.PRODUCTS_32), products64(ShortFingerprintOrder.PRODUCTS_64);

        final ShortFingerprintOrder proto;

        Order(ShortFingerprintOrder proto) {
            this.proto = proto;
        }

        /** How a collection's settings show {@code order} (unset: products64, what collections stored before it use). */
        static String name(ShortFingerprintOrder order) {
            return order == ShortFingerprintOrder.PRODUCTS_32 ? products32.name() : products64.name();
        }
    }

    @Option(names = "--short-fingerprint-order", paramLabel = "products32|products64",
            description = "How each bin of a short text's MinHash fingerprint orders its shingles: by 32-bit products "
                    + "(server default; fast with 256-bit vectors) or 64-bit ones (the fingerprints of collections made "
                    + "before the choice existed). Fixed at creation.")
    Order shortFingerprintOrder;

    CollectionSettings toProto() throws BadInputException {
        CollectionSettings.Builder b = CollectionSettings.newBuilder().setKeepStopWords(keepStopWords);
        if (dropStopWords) {
            if (keepStopWords) {
                throw new BadInputException("--drop-stop-words and --keep-stop-words contradict each other");
            }
            b.setStopWords(StopWords.DROP_STOP_WORDS);
        }
        if (hanTokens != null) {
            b.setHanTokens(switch (hanTokens.toLowerCase(Locale.ROOT)) {
                case "characters", "chars" -> HanTokens.HAN_CHARACTERS;
                case "words", "hanlp" -> HanTokens.HANLP_WORDS;
                default -> throw new BadInputException("--han-tokens must be characters or words, was '" + hanTokens + "'");
            });
        }
        if (maxDistance != null) {
            b.setMaxDistance(UInt32Value.of(maxDistance));
        }
        if (tokenization != null) {
            b.setTokenization(switch (tokenization.toLowerCase(Locale.ROOT)) {
                case "words" -> Tokenization.WORDS;
                case "char-ngrams", "ngrams" -> Tokenization.CHAR_NGRAMS;
                default -> throw new BadInputException("--tokenization must be words or char-ngrams, was '" + tokenization + "'");
            });
        }
        if (ngram != null) {
            b.setNgramSize(ngram);
        }
        if (weighting != null) {
            b.setWeighting(switch (weighting.toLowerCase(Locale.ROOT)) {
                case "tf" -> Weighting.TF;
                case "tf-idf", "tfidf" -> Weighting.TF_IDF;
                default -> throw new BadInputException("--weighting must be tf or tf-idf, was '" + weighting + "'");
            });
        }
        if (builtInIdf) {
            b.setBuiltInIdf(true);
            if (weighting == null) {
                b.setWeighting(Weighting.TF_IDF);
            }
        }
        if (idf != null) {
            readIdf(b);
        }
        if (retention != null) {
            b.setRetentionSeconds(seconds("--retention", retention));
        }
        if (generation != null) {
            b.setGenerationSeconds(seconds("--generation", generation));
        }
        if (shortText) {
            ShortTextSettings.Builder t = ShortTextSettings.newBuilder().setEnabled(true);
            if (shortTextMaxChars != null) {
                t.setMaxChars(shortTextMaxChars);
            }
            if (shortTextDistance != null) {
                t.setCandidateDistance(shortTextDistance);
            }
            if (shortTextMinJaccard != null) {
                t.setMinJaccard(shortTextMinJaccard);
            }
            if (shortTextShingle != null) {
                t.setShingleSize(shortTextShingle);
            }
            b.setShortText(t);
        } else if (shortTextMaxChars != null || shortTextDistance != null || shortTextMinJaccard != null || shortTextShingle != null) {
            throw new BadInputException("--short-text-* options need --short-text");
        }
        sketch(b);
        shortFingerprint(b);
        return b.build();
    }

    private void shortFingerprint(CollectionSettings.Builder b) throws BadInputException {
        boolean tuned = shortFingerprintLetters != null || shortFingerprintDistance != null || shortFingerprintMinJaccard != null
                || shortFingerprintBlocks != null || shortFingerprintOrder != null;
        if (Boolean.FALSE.equals(shortFingerprint)) {
            if (tuned) {
                throw new BadInputException("--short-fingerprint-* options contradict --no-short-fingerprint");
            }
            b.setShortFingerprint(ShortFingerprintSettings.newBuilder().setEnabled(false));
        } else if (Boolean.TRUE.equals(shortFingerprint) || tuned) {
            ShortFingerprintSettings.Builder t = ShortFingerprintSettings.newBuilder().setEnabled(true);
            if (shortFingerprintLetters != null) {
                t.setMaxLetters(shortFingerprintLetters);
            }
            if (shortFingerprintDistance != null) {
                t.setCandidateDistance(shortFingerprintDistance);
            }
            if (shortFingerprintMinJaccard != null) {
                t.setMinJaccard(shortFingerprintMinJaccard);
            }
            if (shortFingerprintBlocks != null) {
                t.setBlocks(shortFingerprintBlocks.proto);
            }
            if (shortFingerprintOrder != null) {
                t.setOrder(shortFingerprintOrder.proto);
            }
            b.setShortFingerprint(t);
        }
    }

    private void sketch(CollectionSettings.Builder b) throws BadInputException {
        boolean tuned = sketchMinJaccard != null || sketchDistance != null || sketchWideDistance != null || sketchWideWords != null;
        if (Boolean.FALSE.equals(sketch)) {
            if (tuned) {
                throw new BadInputException("--sketch-* options contradict --no-sketch");
            }
            b.setSketch(SketchSettings.newBuilder().setEnabled(false));
        } else if (Boolean.TRUE.equals(sketch) || tuned) {
            SketchSettings.Builder t = SketchSettings.newBuilder().setEnabled(true);
            if (sketchMinJaccard != null) {
                t.setMinJaccard(sketchMinJaccard);
            }
            if (sketchDistance != null) {
                t.setCandidateDistance(sketchDistance);
            }
            if (sketchWideDistance != null) {
                t.setWideCandidateDistance(sketchWideDistance);
            }
            if (sketchWideWords != null) {
                t.setWideMaxWords(sketchWideWords);
            }
            b.setSketch(t);
        }
    }

    static String describe(CollectionSettings s) {
        StringBuilder b = new StringBuilder("k=").append(s.getMaxDistance().getValue())
                .append(' ').append(s.getTokenization().name().toLowerCase(Locale.ROOT));
        if (s.getTokenization() == Tokenization.CHAR_NGRAMS) {
            b.append('(').append(s.getNgramSize()).append(')');
        }
        if (s.getTokenization() != Tokenization.CHAR_NGRAMS) {
            b.append(hanTokens(s) == HanTokens.HAN_CHARACTERS ? " han=characters" : " han=hanlp-words");
        }
        b.append(stopWords(s) == StopWords.KEEP_STOP_WORDS ? " stop-words=kept" : " stop-words=dropped");
        b.append(' ').append(s.getWeighting().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        if (s.getBuiltInIdf()) {
            b.append("(built-in").append(s.getIdfCount() > 0 ? ", " + s.getIdfCount() + " terms given)" : ")");
        } else if (s.getIdfCount() > 0) {
            b.append('(').append(s.getIdfCount()).append(" terms)");
        }
        if (s.hasShortText()) {
            ShortTextSettings t = s.getShortText();
            b.append(" short-text(<=").append(t.getMaxChars()).append(" chars, k<=").append(t.getCandidateDistance())
                    .append(", jaccard>=").append(t.getMinJaccard()).append(')');
        }
        if (s.hasSketch() && s.getSketch().getEnabled()) {
            b.append(" sketch(k<=").append(s.getSketch().getCandidateDistance());
            if (s.getSketch().getWideCandidateDistance() > s.getSketch().getCandidateDistance()) {
                b.append(", k<=").append(s.getSketch().getWideCandidateDistance()).append(" up to ")
                        .append(s.getSketch().getWideMaxWords()).append(" words");
            }
            b.append(", jaccard>=").append(s.getSketch().getMinJaccard()).append(')');
        }
        if (s.hasShortFingerprint() && s.getShortFingerprint().getEnabled()) {
            b.append(" short-fingerprint(<=").append(s.getShortFingerprint().getMaxLetters()).append(" letters, k<=")
                    .append(s.getShortFingerprint().getCandidateDistance());
            if (s.getShortFingerprint().getMinJaccard() != 0) {
                b.append(", jaccard>=").append(s.getShortFingerprint().getMinJaccard());
            }
            b.append(", blocks=").append(Blocks.name(s.getShortFingerprint().getBlocks()))
                    .append(", order=").append(Order.name(s.getShortFingerprint().getOrder())).append(')');
        }
        b.append(s.getRetentionSeconds() == 0 ? " retention=forever"
                : " retention=" + Duration.ofSeconds(s.getRetentionSeconds()) + "/" + Duration.ofSeconds(s.getGenerationSeconds()));
        return b.toString();
    }

    /**
     * How a stored collection cuts Han characters: settings stored before the field existed
     * leave it unset and keep HanLP words.
     */
    static HanTokens hanTokens(CollectionSettings stored) {
        return stored.getHanTokens() == HanTokens.HAN_TOKENS_UNSPECIFIED ? HanTokens.HANLP_WORDS : stored.getHanTokens();
    }

    /**
     * Whether a stored collection keeps stop words: settings stored before {@code stop_words}
     * existed leave it unset, and {@code keep_stop_words} decides.
     */
    static StopWords stopWords(CollectionSettings stored) {
        if (stored.getStopWords() != StopWords.STOP_WORDS_UNSPECIFIED) {
            return stored.getStopWords();
        }
        return stored.getKeepStopWords() ? StopWords.KEEP_STOP_WORDS : StopWords.DROP_STOP_WORDS;
    }

    /** "2d", "36h", "90m", "45s", or an ISO-8601 duration such as PT6H. */
    static long seconds(String option, String text) throws BadInputException {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("p")) {
                return Duration.parse(t.toUpperCase(Locale.ROOT)).toSeconds();
            }
            long n = Long.parseLong(t.substring(0, t.length() - 1));
            switch (t.charAt(t.length() - 1)) {
                case 'd': return Duration.ofDays(n).toSeconds();
                case 'h': return Duration.ofHours(n).toSeconds();
                case 'm': return Duration.ofMinutes(n).toSeconds();
                case 's': return n;
                default: throw new NumberFormatException();
            }
        } catch (RuntimeException e) {
            throw new BadInputException(option + " '" + text + "' is not a duration like 2d, 36h, 90m, 45s or PT6H");
        }
    }

    private void readIdf(CollectionSettings.Builder b) throws BadInputException {
        List<String> lines;
        try {
            lines = Files.readAllLines(idf);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + idf, e);
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\t");
            try {
                b.putIdf(parts[0], Double.parseDouble(parts[1].trim()));
            } catch (RuntimeException e) {
                throw new BadInputException(idf + ":" + (i + 1) + ": expected 'feature<TAB>idf'");
            }
        }
    }
}
