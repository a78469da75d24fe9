/**
 * Text to 64-bit SimHash fingerprint: normalise, cut features, drop stop words, weight, hash,
 * sum signed weights per bit, keep the signs. {@link io.simdex.core.text.TextFingerprinter} is
 * the entry point, {@link io.simdex.core.text.TextSettings} says how, and
 * {@link io.simdex.core.text.SimHash} and {@link io.simdex.core.text.IdfTable} are the public
 * parts; the tokenizers and stop words are package-private.
 *
 * <h2>Pipeline</h2>
 * <pre>
 *   text -- NFKC, lower case --+-- WORDS:       Han runs -&gt; HanLP words or characters; kana, Hangul and
 *                              |                letter/digit runs -&gt; one token each;
 *                              |                stop words out; k-token shingles
 *                              +-- CHAR_NGRAMS: letters, digits, CJK chars, one space per gap;
 *                                               stop words out; code-point n-grams
 *   features -- XXH3-64 hash, weight 1 (x idf) per occurrence --&gt; SimHash: per bit +w if 1,
 *               -w if 0 --&gt; bit = (sum &gt; 0)
 * </pre>
 *
 * <h2>Stability</h2>
 * Fingerprints are persisted and compared across processes and versions, so every input to
 * them is pinned: our own stop-word lists rather than HanLP's mutable global one, an idf table
 * shipped as a resource, HanLP's global custom dictionary and normalisation switched off, XXH3
 * rather than {@code String.hashCode}, and {@link java.util.Locale#ROOT} lower-casing. Changing
 * a stop-word list, the built-in idf table, the normalisation, the
 * hash or the HanLP version changes fingerprints, and so, for characters new to Unicode, can a
 * JDK upgrade (NFKC and script tables): treat any of these as a data migration. Tests pin the
 * fingerprints of four articles under {@link io.simdex.core.text.TextSettings#defaults()} and
 * {@link io.simdex.core.text.TextSettings#recommended()} to catch such a change.
 *
 * <h2>Names</h2>
 * A <em>token</em> is a word as the tokenizer cuts it. A <em>feature</em> or <em>term</em> is
 * what gets hashed: a token, a shingle of k tokens joined by one space, or a character n-gram.
 * <em>Normalised</em> means NFKC then lower case.
 */
package io.simdex.core.text;
