package io.simdex.router.config;

/**
 * One key's effective value and where it came from: {@code default}, {@code FILE line N},
 * {@code environment SIMDEX_KEY} or {@code flag --name}. Messages about the value start with the
 * origin, so an operator knows which of the four to fix.
 *
 * @param value the value as text, trimmed; "" when unset
 */
public record Setting(String key, String value, String origin) {
    public static final String DEFAULT = "default";

    /** A flag's setting, e.g. {@code flag("port", "7411", "--port")}. */
    public static Setting flag(String key, String value, String flag) {
        return new Setting(key, value.trim(), "flag " + flag);
    }

    public boolean isSet() {
        return !value.isEmpty();
    }

    /** The value parsed by {@code parser}, whose IllegalArgumentException gets this setting's origin in front. */
    public <T> T parse(java.util.function.Function<String, T> parser) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(origin + ": " + e.getMessage(), e);
        }
    }

    /** An IllegalArgumentException saying what is wrong with this value, e.g. {@code environment SIMDEX_PORT: port must be 0..65535, was "x"}. */
    public IllegalArgumentException invalid(String must) {
        return new IllegalArgumentException(origin + ": " + key + " must be " + must + ", was \"" + value + "\"");
    }
}
