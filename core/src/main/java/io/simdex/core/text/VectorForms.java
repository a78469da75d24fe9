package io.simdex.core.text;

/**
 * Picks, once per JVM, between a kernel's scalar form and its vector form ({@code Vector...}
 * classes of this package, over {@code jdk.incubator.vector}): the vector form where the JVM
 * runs with {@code --add-modules jdk.incubator.vector} and the CPU has 512-bit vectors (a vector
 * form's constructor refuses narrower ones: BitMinHash's bins gained 1.15x with 256 bits and
 * lost without AVX2), else the scalar one. Both forms of a kernel compute the same values bit for bit, so a
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

    /** Thrown by a vector form's constructor on a CPU without eight 64-bit lanes. */
    static UnsupportedOperationException narrow(int lanes) {
        return new UnsupportedOperationException("the CPU's vectors hold " + lanes + " 64-bit lanes, not 8");
    }
}
