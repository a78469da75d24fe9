package io.simdex.router.security;

import io.grpc.MethodDescriptor;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.CreateCollectionRequest;
import io.simdex.proto.v1.DeleteCollectionRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.DeleteRequest;
import io.simdex.proto.v1.DropUrlJobRequest;
import io.simdex.proto.v1.FingerprintRequest;
import io.simdex.proto.v1.InsertRequest;
import io.simdex.proto.v1.ExportRequest;
import io.simdex.proto.v1.LookupRequest;
import io.simdex.proto.v1.QueryRequest;
import io.simdex.proto.v1.SimdexGrpc;
import io.simdex.proto.v1.StatsRequest;
import io.simdex.proto.v1.UpdateCollectionRequest;
import io.simdex.router.api.Catalog;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Which role each RPC needs, and on what. Calls on a collection (or a URL job, which counts as
 * the collection of its name) are checked on every request message against the collection it
 * names; ListCollections needs read on any collection; every other method, the Admin service's
 * and any method this table does not know, needs admin on {@code *}. Health checks and server
 * reflection need no token, so load balancers and grpcurl's discovery work.
 */
final class MethodRules {
    /** Services anyone may call: health and reflection (v1 and v1alpha). */
    static final Set<String> OPEN_SERVICES = Set.of("grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection");

    /** What one method needs: {@code role}, on the collection {@code target} names (null: on the server as a whole). */
    record Rule(Role role, Function<Object, String> target, boolean anyCollection) {
        boolean perMessage() {
            return target != null;
        }

        /** Whether {@code grants} allow the call; {@code message} is read only when {@link #perMessage()}. */
        boolean allows(List<Grant> grants, Object message) {
            String on = target == null ? Grant.ANY : target.apply(message);
            for (Grant g : grants) {
                if (anyCollection ? g.role().covers(role) : g.allows(role, on)) {
                    return true;
                }
            }
            return false;
        }

        String describe(Object message) {
            String on = target != null ? "collection '" + target.apply(message) + "'" : anyCollection ? "any collection" : "'*'";
            return role.name().toLowerCase() + " on " + on;
        }
    }

    private static final Rule SERVER_ADMIN = new Rule(Role.ADMIN, null, false);
    private static final Map<String, Rule> RULES = new HashMap<>();

    static {
        on(SimdexGrpc.getCreateCollectionMethod(), Role.ADMIN, CreateCollectionRequest::getName);
        on(SimdexGrpc.getDeleteCollectionMethod(), Role.ADMIN, DeleteCollectionRequest::getName);
        on(SimdexGrpc.getUpdateCollectionMethod(), Role.ADMIN, UpdateCollectionRequest::getName);
        RULES.put(SimdexGrpc.getListCollectionsMethod().getFullMethodName(), new Rule(Role.READ, null, true));
        on(SimdexGrpc.getInsertMethod(), Role.WRITE, InsertRequest::getCollection);
        on(SimdexGrpc.getDedupMethod(), Role.WRITE, DedupRequest::getCollection);
        on(SimdexGrpc.getDeleteMethod(), Role.WRITE, DeleteRequest::getCollection);
        on(SimdexGrpc.getBulkLoadMethod(), Role.WRITE, BulkLoadRequest::getCollection);
        on(SimdexGrpc.getCheckUrlsMethod(), Role.WRITE, CheckUrlsRequest::getJob);
        on(SimdexGrpc.getDropUrlJobMethod(), Role.WRITE, DropUrlJobRequest::getJob);
        on(SimdexGrpc.getQueryMethod(), Role.READ, QueryRequest::getCollection);
        on(SimdexGrpc.getLookupMethod(), Role.READ, LookupRequest::getCollection);
        on(SimdexGrpc.getExportMethod(), Role.READ, ExportRequest::getCollection);
        on(SimdexGrpc.getFingerprintMethod(), Role.READ, FingerprintRequest::getCollection);
        on(SimdexGrpc.getStatsMethod(), Role.READ, StatsRequest::getCollection);
    }

    private MethodRules() {
    }

    @SuppressWarnings("unchecked")
    private static <Q> void on(MethodDescriptor<Q, ?> method, Role role, Function<Q, String> collection) {
        // An empty collection name means the default collection, as the service reads it.
        Function<Object, String> target = m -> {
            String name = collection.apply((Q) m);
            return name.isEmpty() ? Catalog.DEFAULT : name;
        };
        RULES.put(method.getFullMethodName(), new Rule(role, target, false));
    }

    /** The rule of a method by its full name; admin on {@code *} for a method not listed. */
    static Rule of(String fullMethodName) {
        return RULES.getOrDefault(fullMethodName, SERVER_ADMIN);
    }
}
