package io.simdex.client.batch;

import io.simdex.client.Fingerprints;
import io.simdex.fingerprint.BitFlips;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Test data: a batch and an index with near-duplicates planted at exact distances 0..5 around
 * random centres, within the batch and between batch and index, in shuffled input order.
 */
final class PlantedBatch {
    static final int MAX_PLANTED_DISTANCE = 5;

    /** Batch documents in input order: id to fingerprint. */
    final Map<String, Long> batch = new LinkedHashMap<>();
    /** Stored documents: id to fingerprint. */
    final Map<String, Long> index = new LinkedHashMap<>();

    private PlantedBatch() {
    }

    /**
     * {@code centres} random centres, each with a batch copy and, at random, further batch
     * copies and index copies at distances 0..5; plus {@code loners} unrelated batch documents.
     */
    static PlantedBatch generate(long seed, int centres, int loners) {
        SplittableRandom random = new SplittableRandom(seed);
        PlantedBatch p = new PlantedBatch();
        List<Map.Entry<String, Long>> docs = new ArrayList<>();
        for (int c = 0; c < centres; c++) {
            long centre = random.nextLong();
            docs.add(Map.entry("c" + c, centre));
            for (int d = 0; d <= MAX_PLANTED_DISTANCE; d++) {
                if (random.nextInt(3) == 0) {
                    docs.add(Map.entry("c" + c + "-b" + d, BitFlips.flip(centre, d, random)));
                }
                if (random.nextInt(4) == 0) {
                    p.index.put("c" + c + "-i" + d, BitFlips.flip(centre, d, random));
                }
            }
        }
        for (int i = 0; i < loners; i++) {
            docs.add(Map.entry("l" + i, random.nextLong()));
        }
        Collections.shuffle(docs, new java.util.Random(seed));
        docs.forEach(e -> p.batch.put(e.getKey(), e.getValue()));
        return p;
    }

    /** Writes the batch as JSONL with fingerprints. */
    Path write(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        batch.forEach((id, fp) -> lines.add(fingerprintLine(id, fp)));
        return Files.write(file, lines);
    }

    static String fingerprintLine(String id, long fp) {
        return "{\"id\": \"" + id + "\", \"fingerprint\": \"" + Fingerprints.format(fp) + "\"}";
    }
}
