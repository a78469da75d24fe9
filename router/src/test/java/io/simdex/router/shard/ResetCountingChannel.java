package io.simdex.router.shard;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/** A channel that counts {@link #resetConnectBackoff} calls and forwards everything to the channel it wraps. */
public final class ResetCountingChannel extends ManagedChannel {
    private final ManagedChannel channel;
    public final LongAdder resets = new LongAdder();

    public ResetCountingChannel(ManagedChannel channel) {
        this.channel = channel;
    }

    @Override
    public void resetConnectBackoff() {
        resets.increment();
        channel.resetConnectBackoff();
    }

    @Override
    public ConnectivityState getState(boolean requestConnection) {
        return channel.getState(requestConnection);
    }

    @Override
    public ManagedChannel shutdown() {
        return channel.shutdown();
    }

    @Override
    public boolean isShutdown() {
        return channel.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return channel.isTerminated();
    }

    @Override
    public ManagedChannel shutdownNow() {
        return channel.shutdownNow();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return channel.awaitTermination(timeout, unit);
    }

    @Override
    public <Q, A> ClientCall<Q, A> newCall(MethodDescriptor<Q, A> method, CallOptions options) {
        return channel.newCall(method, options);
    }

    @Override
    public String authority() {
        return channel.authority();
    }
}
