package io.simdex.loadtest.quality;

import java.nio.file.Path;
import java.util.List;

/** The evaluation's short English texts for other tools: prose sentences of the machine's man pages. */
public final class ManSentences {
    private ManSentences() {
    }

    /**
     * Up to {@code count} distinct sentences of 8-40 plain words, at most 3 a page, from the
     * English man pages under {@code manRoot}, in the order {@code seed} shuffles the pages.
     */
    public static List<String> english(Path manRoot, int count, long seed) {
        return new Sources(manRoot, null, null, seed).englishShort(count).stream().map(Doc::text).toList(); // no fortunes: English only
    }
}
