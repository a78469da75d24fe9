package io.simdex.router.security;

import io.simdex.core.io.Cadence;
import io.simdex.core.io.FileStamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * An auth file ({@link TokenTable} gives the format) that is read again when it changes: at most
 * once per check interval, the call that finds the interval over compares the file's modification
 * time, size and identity (a replaced file or a moved symlink counts) with what was last read,
 * and re-reads it if any differ. Other calls only read a volatile. A file that has become
 * unreadable or malformed keeps the grants last read and is logged once per change; at start
 * either is an error.
 */
public final class AuthFile {
    /** How often a running server looks at the file. */
    public static final Duration DEFAULT_CHECK = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(AuthFile.class);

    private final Path file;
    private final Cadence checks;
    private volatile FileStamp stamp;
    private volatile TokenTable table;

    private AuthFile(Path file, Duration checkEvery) {
        this.file = file;
        this.checks = new Cadence(checkEvery);
    }

    /**
     * Reads {@code file} now and then again when it changes, looking every {@code checkEvery}.
     *
     * @throws IllegalArgumentException naming the file and line of a malformed line
     * @throws UncheckedIOException when the file cannot be read
     */
    public static AuthFile load(Path file, Duration checkEvery) {
        AuthFile f = new AuthFile(file, checkEvery);
        try {
            f.stamp = FileStamp.of(file);
            f.table = read(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read auth file " + file + ": " + e, e);
        }
        return f;
    }

    /** The grants as of the last read; looks at the file first when the check interval is over. */
    public TokenTable current() {
        if (checks.due()) {
            reloadIfChanged();
        }
        return table;
    }

    public Path path() {
        return file;
    }

    private void reloadIfChanged() {
        FileStamp now = FileStamp.of(file);
        if (now.equals(stamp)) {
            return;
        }
        stamp = now;
        if (now == FileStamp.MISSING) {
            LOG.warn("auth file {} cannot be read; keeping the grants read before", file);
            return;
        }
        try {
            TokenTable t = read(file);
            table = t;
            LOG.info("auth file {} read again: {} grants", file, t.size());
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("auth file {} changed but cannot be used ({}); keeping the grants read before", file, e.getMessage());
        }
    }

    private static TokenTable read(Path file) throws IOException {
        return TokenTable.parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    }
}
