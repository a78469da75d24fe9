package io.simdex.client.cli;

/** Input data the CLI cannot use: a bad line, an unreadable file. Exit code 1. */
final class BadInputException extends Exception {
    BadInputException(String message) {
        super(message);
    }
}
