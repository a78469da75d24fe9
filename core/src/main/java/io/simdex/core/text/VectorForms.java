package io.simdex.core.text;

/**
 * Picks, once per JVM, between a kernel's scalar form and its vector form ({@code Vector...}
 * classes of this package, over {@code jdk.incubator.vector}): the vector form where the JVM
 * runs with {@code --add-modules jdk.incubator.vector} and the CPU's vectors are wide enough for
 * the form (a vector form's constructor refuses narrower ones: the 64-bit bins of BitMinHash
 * gained 1.15x with 256 bits and lost without AVX2, so they need 512; its 32-bit bins need 256),
 * else the scalar one. Both forms of a kernel compute the same values bit for bit, so a
 * stored fingerprint never depends on the JVM's flags or CPU.
 */
final class VectorForms {
    /** Set to false to take the scalar forms even where the vector ones would run. */
    static final String PROPERTY = "simdex.vector";

    private VectorForms() {
    }

    /** The vector form {@code vectorClass} (a simple name in this package) if it runs here, else {@code scalar}. */
    static <T> T choose(Class<T> kernel, String vectorClass, T scalar) {
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))
                || ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            return scalar;
        }
        try {
            return kernel.cast(Class.forName(VectorForms.class.getPackageName() + "." + vectorClass).getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException | LinkageError e) {
            // The constructor refused a narrow CPU (wrapped in InvocationTargetException), or
            // the class could not link.
            return scalar;
        }
    }

    /** Thrown by a vector form's constructor on a CPU whose vectors hold fewer than {@code needed} lanes of {@code laneBits}. */
    static UnsupportedOperationException narrow(int lanes, int laneBits, int needed) {
        return new UnsupportedOperationException("the CPU's vectors hold " + lanes + " " + laneBits + "-bit lanes, not " + needed);
    }
}
