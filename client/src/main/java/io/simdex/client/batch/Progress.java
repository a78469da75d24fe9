package io.simdex.client.batch;

/** Where {@code dedup-batch} reports progress: one phase at a time, each with a known or unknown total. */
interface Progress extends AutoCloseable {
    /** No output (tests, {@code --no-progress}). */
    Progress NONE = new Progress() {
        @Override
        public void phase(String name, long total) {
        }

        @Override
        public void step(long n) {
        }

        @Override
        public void close() {
        }
    };

    /** Starts a phase, ending the previous one; total -1 when unknown. */
    void phase(String name, long total);

    /** {@code n} more units of the current phase are done. */
    void step(long n);

    /** Ends the last phase. */
    @Override
    void close();
}
