package io.simdex.router.security;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.simdex.proto.v1.AdminGrpc;
import io.simdex.proto.v1.ExportRequest;
import io.simdex.proto.v1.SimdexGrpc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The audit log: every call that changes what a server keeps beyond one document's write, or
 * the cluster's shape (CreateCollection, DeleteCollection, UpdateCollection, Delete,
 * DropUrlJob; AddNode, DrainNode, RemoveNode), and every export of a collection's documents
 * (Export, by its first page), is logged when it ends with who asked, from
 * where, what, and how it ended, refusals included: {@code audit: DeleteCollection name=news by token
 * sha256:3f2a9b1c0d4e5f60 cert "CN=ops-1" from /10.0.0.5:53122: OK}. A token is named by
 * the start of its SHA-256, which the auth file's line for it holds; the token itself is never
 * logged. To the logger {@code simdex.audit} (INFO), which a Logback configuration can send to
 * a file of its own. Installed outermost, so it sees the calls the token check refuses.
 */
public final class AuditLog implements ServerInterceptor {
    static final Set<String> AUDITED = Set.of(
            SimdexGrpc.getCreateCollectionMethod().getFullMethodName(),
            SimdexGrpc.getDeleteCollectionMethod().getFullMethodName(),
            SimdexGrpc.getUpdateCollectionMethod().getFullMethodName(),
            SimdexGrpc.getDeleteMethod().getFullMethodName(),
            SimdexGrpc.getDropUrlJobMethod().getFullMethodName(),
            SimdexGrpc.getExportMethod().getFullMethodName(),
            AdminGrpc.getAddNodeMethod().getFullMethodName(),
            AdminGrpc.getDrainNodeMethod().getFullMethodName(),
            AdminGrpc.getRemoveNodeMethod().getFullMethodName());
    /** Hex digits of a token's SHA-256 that name it. */
    private static final int TOKEN_HEX = 16;
    private static final Logger LOG = LoggerFactory.getLogger("simdex.audit");

    private final Consumer<String> sink;

    public AuditLog() {
        this(LOG::info);
    }

    AuditLog(Consumer<String> sink) {
        this.sink = sink;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (!AUDITED.contains(call.getMethodDescriptor().getFullMethodName())) {
            return next.startCall(call, headers);
        }
        String who = caller(call, headers);
        Object[] request = new Object[1];
        ServerCall<Q, R> logged = new SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                if (!(request[0] instanceof ExportRequest export && !export.getCursor().isEmpty())) { // an export is logged by its first page
                    sink.accept(line(call.getMethodDescriptor().getBareMethodName(), request[0], who, status));
                }
                super.close(status, trailers);
            }
        };
        return new SimpleForwardingServerCallListener<>(next.startCall(logged, headers)) {
            @Override
            public void onMessage(Q message) {
                if (request[0] == null) {
                    request[0] = message;
                }
                super.onMessage(message);
            }
        };
    }

    private static String line(String method, Object request, String who, Status status) {
        StringBuilder b = new StringBuilder("audit: ").append(method);
        String what = RequestSummary.of(request, null);
        if (!what.isEmpty()) {
            b.append(' ').append(what);
        }
        b.append(' ').append(who).append(": ").append(status.getCode());
        if (!status.isOk() && status.getDescription() != null) {
            b.append(" (").append(status.getDescription()).append(')');
        }
        return b.toString();
    }

    /** Who called: the token by its hash, the client certificate's subject, the address. */
    private static String caller(ServerCall<?, ?> call, Metadata headers) {
        StringBuilder b = new StringBuilder("by");
        String token = AuthInterceptor.bearer(headers.get(AuthInterceptor.AUTHORIZATION));
        // "sha256:" and the hash's start: what the auth file's line for the token begins with.
        b.append(token == null ? " no token" : " token " + TokenTable.hashOf(token).substring(0, "sha256:".length() + TOKEN_HEX));
        SSLSession tls = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
        if (tls != null) {
            try {
                Certificate[] chain = tls.getPeerCertificates();
                if (chain.length > 0 && chain[0] instanceof X509Certificate leaf) {
                    b.append(" cert \"").append(leaf.getSubjectX500Principal().getName()).append('"');
                }
            } catch (SSLPeerUnverifiedException noClientCertificate) {
                // TLS without a client certificate: nothing to name
            }
        }
        Object peer = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        return peer == null ? b.toString() : b.append(" from ").append(peer).toString();
    }
}
