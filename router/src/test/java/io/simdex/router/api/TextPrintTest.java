package io.simdex.router.api;

import io.simdex.core.text.TextFingerprinter;
import io.simdex.core.text.TextSettings;
import io.simdex.core.text.Tokenization;
import io.simdex.core.text.Weighting;
import io.simdex.fingerprint.crawl.ContentHash;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Target#print} computes a short boundary text's SimHash from the text as given, where
 * its probe checks used to compute it from the normal form ({@link ContentHash#normalise}): the
 * second probe stays the same only if every text pipeline cuts the same features from both.
 */
class TextPrintTest {
    private static final String[] PIECES = {
            "The city council voted on Tuesday", "THE CITY COUNCIL", "ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ １２３", "tabs\tand\nnew  lines",
            "punctuation, (brackets) and -- dashes!", "今天下午三点地铁二号线因设备故障暂停运营", "预计一小时后恢复。", "，！？",
            "the of and to", "Ünïcödé façade naïve", "ﬁ ligature Ⅻ roman", "  leading and trailing  ", "日本語のテキスト", "한국어 텍스트",
            "version 2.0.1 released", "e-mail: someone@example.org"};

    @Test
    void simHashOfTheText_equalsThatOfItsNormalForm_forEveryPipeline() {
        List<TextSettings> pipelines = List.of(TextSettings.defaults(), TextSettings.recommended(), TextSettings.charNgrams(),
                new TextSettings(Tokenization.WORDS, Weighting.TF, 2, false), new TextSettings(Tokenization.CHAR_NGRAMS, Weighting.TF, 4, false));
        SplittableRandom rnd = new SplittableRandom(11);
        List<String> texts = new ArrayList<>(List.of(PIECES));
        for (int i = 0; i < 300; i++) {
            StringBuilder b = new StringBuilder();
            for (int j = 1 + rnd.nextInt(12); j > 0; j--) {
                b.append(PIECES[rnd.nextInt(PIECES.length)]).append(rnd.nextBoolean() ? " " : "");
            }
            texts.add(b.toString());
        }
        for (TextSettings settings : pipelines) {
            TextFingerprinter f = TextFingerprinter.of(settings);
            for (String text : texts) {
                String normal = ContentHash.normalise(text);
                if (!f.terms(text).isEmpty()) {
                    assertEquals(f.fingerprint(normal), f.fingerprint(text), settings + ": " + text);
                } else {
                    assertEquals(List.of(), f.terms(normal), settings + ": " + text);
                }
            }
        }
    }
}
