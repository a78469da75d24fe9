package io.simdex.ops;

import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.simdex.proto.v1.SimdexGrpc;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One grpcurl command line of the README, parsed by grpcurl's documented syntax
 * ({@code grpcurl [flags] address (list | SERVICE/METHOD)}, flags {@code -plaintext} and
 * {@code -d JSON}) and made as the same call grpcurl would make: the {@code -d} JSON parsed into
 * the method's request by protobuf's {@link JsonFormat}, the answer printed as JSON
 * ({@code list}: the services the server's reflection lists, one per line, sorted).
 */
record GrpcurlCall(String address, String data, String symbol) {
    private static final List<ServiceDescriptor> SERVICES =
            List.of(SimdexGrpc.getServiceDescriptor(), HealthGrpc.getServiceDescriptor());

    static GrpcurlCall parse(String line) {
        List<String> words = ReadmeTour.words(line);
        if (words.isEmpty() || !words.get(0).equals("grpcurl")) {
            throw new IllegalArgumentException("not a grpcurl line: " + line);
        }
        String data = null;
        boolean plaintext = false;
        int i = 1;
        for (; i < words.size() && words.get(i).startsWith("-"); i++) {
            switch (words.get(i)) {
                case "-plaintext" -> plaintext = true;
                case "-d" -> data = words.get(++i);
                default -> throw new IllegalArgumentException("flag the check does not know: " + words.get(i) + " in: " + line);
            }
        }
        if (!plaintext) {
            throw new IllegalArgumentException("the server speaks plaintext; grpcurl needs -plaintext: " + line);
        }
        if (words.size() != i + 2) {
            throw new IllegalArgumentException("expected ADDRESS and one of list or SERVICE/METHOD after the flags: " + line);
        }
        String symbol = words.get(i + 1);
        if (!symbol.equals("list") && !symbol.matches("[a-z0-9_.]+\\.[A-Z]\\w*/[A-Z]\\w*")) {
            throw new IllegalArgumentException("not list nor a fully qualified SERVICE/METHOD: " + symbol);
        }
        if (symbol.equals("list") && data != null) {
            throw new IllegalArgumentException("list takes no -d: " + line);
        }
        return new GrpcurlCall(words.get(i), data, symbol);
    }

    /** Makes the call on {@code channel}; returns what grpcurl would print, as compact JSON. */
    String call(Channel channel) throws Exception {
        if (symbol.equals("list")) {
            return listServices(channel);
        }
        MethodDescriptor<Message, Message> method = method(symbol);
        Message.Builder request = ((MethodDescriptor.PrototypeMarshaller<Message>) method.getRequestMarshaller())
                .getMessagePrototype().toBuilder();
        // grpcurl sends an empty request when there is no -d.
        JsonFormat.parser().merge(data == null ? "{}" : data, request);
        Message response = ClientCalls.blockingUnaryCall(channel, method,
                CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), request.build());
        return JsonFormat.printer().omittingInsignificantWhitespace().print(response);
    }

    @SuppressWarnings("unchecked")
    private static MethodDescriptor<Message, Message> method(String fullName) {
        return SERVICES.stream()
                .flatMap(s -> s.getMethods().stream())
                .filter(m -> m.getFullMethodName().equals(fullName))
                .map(m -> (MethodDescriptor<Message, Message>) m)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no such method in the API: " + fullName));
    }

    private static String listServices(Channel channel) throws Exception {
        CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse r) {
                        answer.complete(r);
                    }

                    @Override
                    public void onError(Throwable t) {
                        answer.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        answer.completeExceptionally(new AssertionError("reflection stream ended without an answer"));
                    }
                });
        requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
        ServerReflectionResponse r = answer.get(30, TimeUnit.SECONDS);
        requests.onCompleted();
        return r.getListServicesResponse().getServiceList().stream()
                .map(ServiceResponse::getName).sorted().collect(Collectors.joining("\n", "", "\n"));
    }
}
