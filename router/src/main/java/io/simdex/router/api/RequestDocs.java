package io.simdex.router.api;

import io.simdex.fingerprint.crawl.ContentHash;
import io.simdex.proto.v1.Document;
import io.simdex.router.crawl.ContentIndex;
import io.simdex.router.index.IndexRouter;
import io.simdex.router.shard.Fanout;

import java.security.MessageDigest;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/**
 * A request's documents as parallel arrays, validated and fingerprinted before anything is
 * written: {@code contentKeys[i]} is the content hash of a text document (null for a
 * fingerprint), {@code known[i]} says its fingerprint came from the content index,
 * {@code normalised[i]} is its normalised text (null for a fingerprint) and {@code prints[i]}
 * what fingerprinting it computed (null for a fingerprint or a known text).
 */
record RequestDocs(String[] ids, long[] fps, byte[][] contentKeys, boolean[] known, String[] normalised, Target.TextPrint[] prints) {
    /** A digester per handler thread: {@code MessageDigest.getInstance} looks the provider up on every call. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(ContentHash::newSha256);
    /**
     * Validates and fingerprints documents. Texts whose content hash the collection has seen take
     * the recorded fingerprint; only the others pay for SimHash.
     */
    static RequestDocs read(Target c, List<Document> documents, IndexRouter index) {
        int n = Validation.batch("documents", documents.size());
        String[] ids = new String[n];
        long[] fps = new long[n];
        byte[][] keys = new byte[n][];
        boolean[] known = new boolean[n];
        String[] normalised = new String[n];
        Target.TextPrint[] prints = new Target.TextPrint[n];
        int texts = 0;
        for (int i = 0; i < n; i++) {
            Document d = documents.get(i);
            ids[i] = Validation.id("documents", i, ".id", d.getId());
            switch (d.getContentCase()) {
                case FINGERPRINT -> fps[i] = d.getFingerprint();
                case TEXT -> {
                    normalised[i] = ContentHash.normalise(Validation.text("documents", i, ".text", d.getText()));
                    keys[i] = ContentIndex.key(ContentHash.ofNormal(normalised[i], SHA_256.get()));
                    texts++;
                }
                case CONTENT_NOT_SET -> throw Validation.invalid("documents[" + i + "] has neither fingerprint nor text");
            }
        }
        if (texts > 0) {
            int[] textIndexes = IntStream.range(0, n).filter(i -> keys[i] != null).toArray();
            boolean[] found = new boolean[textIndexes.length];
            long[] recorded = index.contentIndex().lookup(c.name(), c.window().live(), Fanout.pick(keys, textIndexes), found);
            for (int i = 0; i < textIndexes.length; i++) {
                int at = textIndexes[i];
                known[at] = found[i];
                if (found[i]) {
                    fps[at] = recorded[i];
                } else {
                    prints[at] = c.print("documents[" + at + "].text", documents.get(at).getText(), normalised[at]);
                    fps[at] = prints[at].fp();
                }
            }
        }
        return new RequestDocs(ids, fps, keys, known, normalised, prints);
    }

    /** Records the content hashes of the text documents {@code written} accepts. */
    void recordContents(ContentIndex index, Target c, IntPredicate written) {
        int[] texts = IntStream.range(0, ids.length).filter(i -> contentKeys[i] != null && written.test(i)).toArray();
        if (texts.length > 0) {
            index.record(c.name(), c.window().current(), Fanout.pick(contentKeys, texts), Fanout.pick(fps, texts));
        }
    }

    /** What an Insert stores for later verification, short texts and sketches (null: none). */
    String[] shortTextsToStore(Target c) {
        IndexRouter.TextChecks checks = c.textChecks(normalised);
        return checks == null ? null : checks.stored();
    }
}
