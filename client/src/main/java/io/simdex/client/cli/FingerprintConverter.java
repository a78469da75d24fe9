package io.simdex.client.cli;

import io.simdex.client.Fingerprints;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a {@code --fingerprint} value with {@link Fingerprints#parse}; a bad value is a usage error. */
final class FingerprintConverter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
        try {
            return Fingerprints.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
