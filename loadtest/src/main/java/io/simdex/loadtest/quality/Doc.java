package io.simdex.loadtest.quality;

/**
 * A source document of the corpus.
 *
 * @param id    where it came from (a man page file, a fortune entry), unique in the corpus
 * @param text  its text
 * @param group what makes two documents hard to tell apart: the package of a man page, the
 *              page a sentence comes from, the poet of a poem. Pairs within a group are the
 *              hard negatives.
 */
record Doc(String id, String text, String group) {
}
