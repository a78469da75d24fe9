package io.simdex.core.text;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class TokenizerTest {
    private final Tokenizer tokenizer = new Tokenizer();

    @Test
    void tokenize_mixedChineseAndEnglish_segmentsChineseAndLowercasesEnglish() {
        assertEquals(
                List.of("simhash", "算法", "由", "google", "在", "2007", "年", "提出", "用于", "网页", "去", "重"),
                tokenizer.tokenize("SimHash算法由Google在2007年提出，用于网页去重。"));
    }

    @Test
    void tokenize_chineseSentence_dictionaryWords() {
        assertEquals(
                List.of("市政府", "决定", "在", "河流", "两岸", "修建", "新", "的", "防洪", "堤坝"),
                tokenizer.tokenize("市政府决定在河流两岸修建新的防洪堤坝"));
    }

    @Test
    void tokenize_fullWidthCharacters_becomeHalfWidth() {
        assertEquals(List.of("helloworld", "123", "abc"), tokenizer.tokenize("ＨｅｌｌｏＷｏｒｌｄ　１２３，ＡＢＣ！"));
    }

    @Test
    void tokenize_punctuationAndWhitespace_dropped() {
        assertEquals(List.of("river", "bank", "e", "g", "3", "5", "km"),
                tokenizer.tokenize("  River-bank (e.g. 3.5 km)... \t\n"));
    }

    @Test
    void tokenize_apostrophe_splitsContraction() {
        assertEquals(List.of("don", "t", "stop", "council", "s", "vote"), tokenizer.tokenize("Don't stop council's vote"));
    }

    @Test
    void tokenize_kanaAndHangul_oneTokenPerScriptRun() {
        assertEquals(List.of("これは", "テスト", "です"), tokenizer.tokenize("これはテストです"));
        assertEquals(List.of("コーヒー"), tokenizer.tokenize("コーヒー"));
        assertEquals(List.of("コーヒー"), tokenizer.tokenize("ｺｰﾋｰ"));
        assertEquals(List.of("한국어", "텍스트"), tokenizer.tokenize("한국어 텍스트"));
    }

    @Test
    void tokenize_accentsAndOtherAlphabets_keptInWords() {
        assertEquals(List.of("café", "naïve", "москва", "αθήνα"), tokenizer.tokenize("Café NAÏVE Москва Αθήνα"));
    }

    @Test
    void tokenize_blankOrSymbolsOnly_noTokens() {
        assertEquals(List.of(), tokenizer.tokenize(""));
        assertEquals(List.of(), tokenizer.tokenize(" \t\n　"));
        assertEquals(List.of(), tokenizer.tokenize("!?，。…—★"));
    }

    @Test
    void tokenize_hanCharacters_oneTokenPerHanCharacterOthersAsWords() {
        Tokenizer characters = new Tokenizer(HanTokens.CHARACTERS);
        assertEquals(List.of("simhash", "算", "法", "由", "google", "在", "2007", "年", "提", "出"),
                characters.tokenize("SimHash算法由Google在2007年提出。"));
        assertEquals(List.of("これは", "テスト"), characters.tokenize("これはテスト"), "kana runs stay whole");
    }

    @Test
    void tokenize_hanCharacters_punctuationInsideARunChangesNoToken() {
        Tokenizer characters = new Tokenizer(HanTokens.CHARACTERS);
        assertEquals(characters.tokenize("市政府决定修建堤坝"), characters.tokenize("市政府决定，修建堤坝"));
        assertNotEquals(tokenizer.tokenize("市政府决定修建堤坝"), tokenizer.tokenize("市政，府决定修建堤坝"),
                "HanLP words re-cut when a run is split");
    }

    @Test
    void tokenize_hanCharactersOutsideTheBasicPlane_notSplitInHalf() {
        assertEquals(List.of("𠀀", "字"), new Tokenizer(HanTokens.CHARACTERS).tokenize("𠀀字"));
    }
}
