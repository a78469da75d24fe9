package io.simdex.loadtest.run;

import io.grpc.ManagedChannel;

import java.util.ArrayList;
import java.util.List;

/** The targets of one command (the main one, and optionally one to compare with), opened together. */
final class Subjects implements AutoCloseable {
    private final List<Target> targets = new ArrayList<>();
    final List<Measurement.Subject> list = new ArrayList<>();

    /** Opens {@code o.target}, then {@code compare} if not null, each with its own connections and workload. */
    static Subjects open(TargetOptions o, String compare, WorkloadOptions w) throws Exception {
        Subjects s = new Subjects();
        try {
            s.add(o.open(), o, w);
            if (compare != null) {
                s.add(o.open(compare), o, w);
            }
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void add(Target t, TargetOptions o, WorkloadOptions w) {
        targets.add(t);
        ManagedChannel[] channels = t.channels(o.connections);
        list.add(new Measurement.Subject(t, Workloads.create(w, channels, o.timeout), new ServerTimes(channels[0], w.fullMethodName())));
    }

    @Override
    public void close() throws Exception {
        for (Target t : targets) {
            t.close();
        }
    }
}
