package io.simdex.router.transport;

import io.grpc.Status;
import io.simdex.proto.v1.BulkLoadRequest;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.DedupRequest;
import io.simdex.proto.v1.Document;
import io.simdex.proto.v1.StatsRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlowCallsTest {
    @Test
    void describe_namesTheCollectionOrJob_andCountsEachList_butNoTextOrId() {
        DedupRequest dedup = DedupRequest.newBuilder().setCollection("news")
                .addDocuments(Document.newBuilder().setId("secret-id").setText("private text"))
                .addDocuments(Document.newBuilder().setId("b").setFingerprint(7)).build();
        assertEquals("collection=news documents=2", SlowCalls.describe(dedup));
        assertEquals("job=job_108 urls=3", SlowCalls.describe(CheckUrlsRequest.newBuilder().setJob("job_108")
                .addUrls("https://a.cn/1").addUrls("https://a.cn/2").addUrls("https://a.cn/3").build()));
        assertEquals("documents=0", SlowCalls.describe(BulkLoadRequest.getDefaultInstance()), "the default collection is not named");
        assertEquals("", SlowCalls.describe(StatsRequest.getDefaultInstance()));
        assertEquals("", SlowCalls.describe(null));
    }

    @Test
    void atMostTenLinesASecond_theRestCountedInTheNextLine() {
        AtomicLong now = new AtomicLong(TimeUnit.SECONDS.toNanos(100));
        List<String> lines = new ArrayList<>();
        SlowCalls log = new SlowCalls(1000, lines::add, now::get);
        long slow = TimeUnit.MILLISECONDS.toNanos(1500);
        assertTrue(log.isSlow(slow));
        assertFalse(log.isSlow(TimeUnit.MILLISECONDS.toNanos(999)));
        for (int i = 0; i < 15; i++) {
            log.log("simdex.v1.Simdex/Dedup", Status.DEADLINE_EXCEEDED, slow, -1, null, null, 1);
        }
        assertEquals(SlowCalls.LINES_PER_SECOND, lines.size());
        assertEquals("slow call simdex.v1.Simdex/Dedup: 1500.0 ms, DEADLINE_EXCEEDED", lines.get(0));

        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        log.log("simdex.v1.Simdex/BulkLoad", Status.OK, slow, 0, null, "collection=news documents=5000", 40);
        assertEquals("slow call simdex.v1.Simdex/BulkLoad: 1500.0 ms (queued 0.0 ms), OK: collection=news documents=5000"
                + " (first of 40 messages) [5 more slow call(s) not logged before this one]", lines.get(lines.size() - 1));
    }

    @Test
    void zeroMillis_turnsTheLogOff() {
        assertFalse(new SlowCalls(0, line -> { }, System::nanoTime).isSlow(Long.MAX_VALUE - 1));
    }
}
