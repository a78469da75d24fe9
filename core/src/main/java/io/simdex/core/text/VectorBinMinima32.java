package io.simdex.core.text;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link BinMinima32} as many bins at a time as the CPU's vectors hold 32-bit lanes: one xor,
 * multiply (vpmulld) and min per hash and lane group. It refuses vectors of fewer than eight
 * lanes ({@link VectorForms}).
 */
final class VectorBinMinima32 extends BinMinima32 {
    private static final VectorSpecies<Integer> SPECIES = IntVector.SPECIES_PREFERRED;
    private static final int MIN_LANES = 8;

    VectorBinMinima32() {
        this(false);
    }

    /** With {@code anyWidth}, also where the CPU's vectors are narrower (for tests). */
    VectorBinMinima32(boolean anyWidth) {
        if (!anyWidth && SPECIES.length() < MIN_LANES) {
            throw VectorForms.narrow(SPECIES.length(), Integer.SIZE, MIN_LANES);
        }
    }

    @Override
    void fold(int[] hashes, int from, int to, int[] seeds, int[] multipliers, int firstBin, int bins, int[] min, int minOffset) {
        for (int k = firstBin; k < firstBin + bins; k += SPECIES.length()) {
            IntVector seed = IntVector.fromArray(SPECIES, seeds, k);
            IntVector multiplier = IntVector.fromArray(SPECIES, multipliers, k);
            IntVector m = IntVector.fromArray(SPECIES, min, minOffset + k);
            for (int i = from; i < to; i++) {
                m = m.min(seed.lanewise(VectorOperators.XOR, hashes[i]).mul(multiplier));
            }
            m.intoArray(min, minOffset + k);
        }
    }

    @Override
    String name() {
        return "vector-" + SPECIES.vectorBitSize();
    }
}
