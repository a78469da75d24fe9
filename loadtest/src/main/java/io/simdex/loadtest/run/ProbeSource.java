package io.simdex.loadtest.run;

import com.google.gson.JsonParser;
import io.simdex.loadtest.gen.Fingerprints;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/** Query probes: planted near the stored set, uniformly random, or read from a `gen` probes.jsonl. */
final class ProbeSource {
    private ProbeSource() {
    }

    /** {@code n} probe fingerprints as {@code o.probes} says; a file shorter than n is cycled. */
    static long[] probes(WorkloadOptions o, long n) {
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many probes: " + n);
        }
        long[] out = new long[(int) n];
        SplittableRandom random = new SplittableRandom(o.seed ^ 0x9e0be5L);
        switch (o.probes) {
            case "planted" -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = Fingerprints.planted(o.seed, o.stored, i, random).fingerprint();
                }
            }
            case "random" -> {
                for (int i = 0; i < out.length; i++) {
                    out[i] = random.nextLong();
                }
            }
            default -> fromFile(Path.of(o.probes), out);
        }
        return out;
    }

    private static void fromFile(Path file, long[] out) {
        int read = 0;
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null && read < out.length; line = r.readLine()) {
                if (!line.isBlank()) {
                    out[read++] = Fingerprints.parseHex(JsonParser.parseString(line).getAsJsonObject().get("fingerprint").getAsString());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read probes from " + file, e);
        }
        if (read == 0) {
            throw new IllegalArgumentException(file + " holds no probes (JSONL lines with a \"fingerprint\" of hex digits)");
        }
        for (int i = read; i < out.length; i++) {
            out[i] = out[i % read];
        }
    }
}
