package io.simdex.core.text;

import jdk.incubator.vector.LongVector;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Which form of a kernel this JVM runs: the vector one only with eight 64-bit lanes and the property unset or true. */
class VectorFormsTest {
    /** The form the kernels should have chosen in this JVM (whose argLine adds the vector module). */
    static String expectedForm() {
        boolean allowed = Boolean.parseBoolean(System.getProperty(VectorForms.PROPERTY, "true"));
        return allowed && LongVector.SPECIES_PREFERRED.length() >= 8 ? "vector-512" : "scalar";
    }

    @Test
    void aMissingVectorForm_fallsBackToTheScalarOne() {
        SimHashSums scalar = new SimHashSums.Scalar();
        assertSame(scalar, VectorForms.choose(SimHashSums.class, "NoSuchVectorForm", scalar));
    }

    @Test
    void bothKernels_chooseAlike() {
        assertEquals(expectedForm(), SimHashSums.chosen().name());
        assertEquals(expectedForm(), BinMinima.chosen().name());
    }
}
