package io.simdex.core.text;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link BinMinima} eight bins at a time: one 512-bit xor, multiply (vpmullq) and min per hash
 * and eight bins, 4-5x the scalar form's speed (60- and 300-shingle buffers, AVX-512).
 * Narrower vectors gain little or lose (256 bits: 1.15x, no AVX2: 0.6x), so it refuses them
 * ({@link VectorForms}).
 */
final class VectorBinMinima extends BinMinima {
    private static final VectorSpecies<Long> SPECIES = LongVector.SPECIES_512;

    VectorBinMinima() {
        this(false);
    }

    /** With {@code anyWidth}, also where the CPU's vectors are narrower (slowly: for tests). */
    VectorBinMinima(boolean anyWidth) {
        if (!anyWidth && LongVector.SPECIES_PREFERRED.length() < SPECIES.length()) {
            throw VectorForms.narrow(LongVector.SPECIES_PREFERRED.length(), Long.SIZE, SPECIES.length());
        }
    }

    @Override
    void fold(long[] hashes, int from, int to, long[] seeds, long[] multipliers, int firstBin, int bins, long[] min, int minOffset) {
        for (int k = firstBin; k < firstBin + bins; k += SPECIES.length()) {
            LongVector seed = LongVector.fromArray(SPECIES, seeds, k);
            LongVector multiplier = LongVector.fromArray(SPECIES, multipliers, k);
            LongVector m = LongVector.fromArray(SPECIES, min, minOffset + k);
            for (int i = from; i < to; i++) {
                m = m.min(seed.lanewise(VectorOperators.XOR, hashes[i]).mul(multiplier));
            }
            m.intoArray(min, minOffset + k);
        }
    }

    @Override
    String name() {
        return "vector-512";
    }
}
