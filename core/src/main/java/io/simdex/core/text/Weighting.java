package io.simdex.core.text;

/** How much each feature pulls the fingerprint's bits. */
public enum Weighting {
    /** Term frequency: every occurrence counts 1. */
    TF,
    /**
     * Term frequency times the feature's inverse document frequency from an {@link IdfTable};
     * without a table every idf is 1.0, which is plain TF.
     */
    TF_IDF
}
