package io.simdex.client.batch;

import java.io.IOException;

/**
 * An input line {@code dedup-batch} cannot use, named by {@code file:line}. An IOException so
 * that the CLI reports it as bad input (exit code 1) like an unreadable file.
 */
final class BatchInputException extends IOException {
    BatchInputException(String message) {
        super(message);
    }
}
