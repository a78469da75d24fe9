package io.simdex.server.store;

import net.openhft.chronicle.hash.VanillaGlobalMutableState;
import net.openhft.chronicle.values.Values;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The map header's implementation the server ships compiled (so that no process compiles it
 * with javac): Chronicle Values must take it, and it must be what Chronicle Values' generator
 * writes for the Chronicle version in use.
 */
class ChronicleNativeClassesTest {
    private static final String NATIVE = "VanillaGlobalMutableState$$Native";
    private static final Path SHIPPED = Path.of("src/main/java/net/openhft/chronicle/hash", NATIVE + ".java");

    @Test
    void chronicleValues_takesTheShippedHeaderClass_ratherThanCompilingOne() throws Exception {
        Class<?> shipped = Class.forName("net.openhft.chronicle.hash." + NATIVE);
        assertEquals(ChronicleNativeClassesTest.class.getClassLoader(), shipped.getClassLoader(), "on the class path, not defined at run time");
        assertSame(shipped, Values.nativeClassFor(VanillaGlobalMutableState.class));
    }

    @Test
    void shippedHeaderClass_isWhatTheGeneratorWritesForThisChronicleVersion() throws Exception {
        String generated = generate(VanillaGlobalMutableState.class, NATIVE);
        String file = Files.readString(SHIPPED);
        if (!file.substring(file.indexOf("package ")).equals(generated)) {
            Path fresh = Path.of("target", NATIVE + ".java");
            Files.writeString(fresh, generated);
            fail("Chronicle Values generates another " + NATIVE + " than " + SHIPPED + ": replace its code (below the comment) with "
                    + fresh.toAbsolutePath());
        }
    }

    /** What Chronicle Values' generator writes for {@code type}, by the package-private calls it makes itself. */
    private static String generate(Class<?> type, String className) throws ReflectiveOperationException {
        Class<?> model = Class.forName("net.openhft.chronicle.values.ValueModel");
        Method acquire = model.getDeclaredMethod("acquire", Class.class);
        acquire.setAccessible(true);
        Method generate = Class.forName("net.openhft.chronicle.values.Generators").getDeclaredMethod("generateNativeClass", model, String.class);
        generate.setAccessible(true);
        return (String) generate.invoke(null, acquire.invoke(null, type), className);
    }
}
