package io.simdex.server.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.stub.ClientCalls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;

/** Unary calls with hand-made bodies: bytes no generated stub would send (the server's and the router's tests). */
public final class RawCall {
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream in) {
            try {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    };

    private RawCall() {
    }

    public static byte[] call(Channel channel, String fullMethodName, byte[] body) {
        MethodDescriptor<byte[], byte[]> m = MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(fullMethodName).setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
        return ClientCalls.blockingUnaryCall(channel, m, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), body);
    }

    /** Field 1 as a length-delimited value (a string in every request here) holding {@code value}'s bytes. */
    public static byte[] field1(byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x0a);
        long n = value.length;
        while (n >= 0x80) {
            out.write((int) (n & 0x7f) | 0x80);
            n >>>= 7;
        }
        out.write((int) n);
        out.writeBytes(value);
        return out.toByteArray();
    }

    /** A string field that is not UTF-8: a lone continuation byte, an overlong NUL, a surrogate half. */
    public static byte[] notUtf8(int kind) {
        byte[][] bad = {{(byte) 0x80}, {(byte) 0xc0, (byte) 0x80}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}};
        byte[] b = bad[Math.floorMod(kind, 3)];
        return field1(b);
    }
}
