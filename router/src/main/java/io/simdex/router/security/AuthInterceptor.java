package io.simdex.router.security;

import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

import java.util.List;

/**
 * Checks each call's {@code authorization: Bearer TOKEN} against an {@link AuthFile}: no token
 * or one the file does not hold ends the call UNAUTHENTICATED before the service sees it; a
 * token whose grants do not reach what the method needs ({@link MethodRules}) ends it
 * PERMISSION_DENIED, for a call on a collection as soon as a request message names one it may
 * not touch. Registered last on the server builder, so it runs before every other interceptor.
 */
public final class AuthInterceptor implements ServerInterceptor {
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final String BEARER = "bearer ";

    private final AuthFile file;

    public AuthInterceptor(AuthFile file) {
        this.file = file;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (MethodRules.OPEN_SERVICES.contains(call.getMethodDescriptor().getServiceName())) {
            return next.startCall(call, headers);
        }
        String token = bearer(headers.get(AUTHORIZATION));
        if (token == null) {
            return refuse(call, Status.UNAUTHENTICATED.withDescription("no bearer token: send the metadata 'authorization: Bearer TOKEN'"));
        }
        List<Grant> grants = file.current().grantsOf(token);
        if (grants.isEmpty()) {
            return refuse(call, Status.UNAUTHENTICATED.withDescription("unknown token"));
        }
        MethodRules.Rule rule = MethodRules.of(call.getMethodDescriptor().getFullMethodName());
        if (rule.perMessage()) {
            return new EachMessage<>(next.startCall(call, headers), call, grants, rule);
        }
        if (!rule.allows(grants, null)) {
            return refuse(call, denied(call, rule, null));
        }
        return next.startCall(call, headers);
    }

    /** The token of an {@code authorization} value of the Bearer scheme (its name in any case, RFC 6750); else null. */
    static String bearer(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        String token = authorization.substring(BEARER.length()).strip();
        return token.isEmpty() ? null : token;
    }

    private static Status denied(ServerCall<?, ?> call, MethodRules.Rule rule, Object message) {
        return Status.PERMISSION_DENIED.withDescription(call.getMethodDescriptor().getBareMethodName() + " needs "
                + rule.describe(message) + ", which this token is not granted");
    }

    private static <Q> ServerCall.Listener<Q> refuse(ServerCall<Q, ?> call, Status status) {
        call.close(status, new Metadata());
        return new ServerCall.Listener<>() {
        };
    }

    /**
     * Checks every request message; the first one the grants do not cover ends the call, and
     * nothing more reaches the service. (BulkLoad streams name one collection throughout; the
     * service rejects a stream that changes it, so a refusal comes with the first message.)
     */
    private static final class EachMessage<Q> extends SimpleForwardingServerCallListener<Q> {
        private final ServerCall<Q, ?> call;
        private final List<Grant> grants;
        private final MethodRules.Rule rule;
        private boolean refused;

        EachMessage(ServerCall.Listener<Q> delegate, ServerCall<Q, ?> call, List<Grant> grants, MethodRules.Rule rule) {
            super(delegate);
            this.call = call;
            this.grants = grants;
            this.rule = rule;
        }

        @Override
        public void onMessage(Q message) {
            if (refused) {
                return;
            }
            if (!rule.allows(grants, message)) {
                refused = true;
                call.close(denied(call, rule, message), new Metadata());
                return;
            }
            super.onMessage(message);
        }

        @Override
        public void onHalfClose() {
            if (!refused) {
                super.onHalfClose();
            }
        }

        @Override
        public void onReady() {
            if (!refused) {
                super.onReady();
            }
        }
    }
}
