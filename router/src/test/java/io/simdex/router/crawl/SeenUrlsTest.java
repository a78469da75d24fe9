package io.simdex.router.crawl;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.simdex.proto.v1.CheckUrlsRequest;
import io.simdex.proto.v1.CheckUrlsResponse;
import io.simdex.proto.v1.DropUrlJobRequest;
import io.simdex.router.ManualClock;
import io.simdex.router.TestServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Crawl-job URL seen-sets over gRPC: new once, expiring, atomic, persisted. */
class SeenUrlsTest {
    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));

    @Test
    void checkUrls_newOnceThenSeen_untilTheirTtlRunsOut() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            CheckUrlsResponse first = check(s, "job_108", 3600, false, "https://a.cn/1", "https://a.cn/2", "https://a.cn/1");
            assertEquals(List.of(true, true, false), first.getIsNewList(), "a URL repeated in one call is new once");
            assertEquals(2, first.getNewCount());
            assertEquals(List.of(false, true), check(s, "job_108", 3600, false, "https://a.cn/2", "https://a.cn/3").getIsNewList());
            assertEquals(List.of(true), check(s, "job_109", 3600, false, "https://a.cn/1").getIsNewList(), "jobs are separate");

            assertEquals(List.of(true), check(s, "job_108", 3600, true, "https://a.cn/9").getIsNewList());
            assertEquals(List.of(true), check(s, "job_108", 3600, true, "https://a.cn/9").getIsNewList(), "check_only records nothing");

            clock.advance(Duration.ofMinutes(59));
            assertEquals(List.of(false), check(s, "job_108", 3600, false, "https://a.cn/1").getIsNewList());
            clock.advance(Duration.ofMinutes(2));
            // /1 was refreshed at minute 59 (expiry minute 119); /2 expired at minute 60.
            assertEquals(List.of(false, true), check(s, "job_108", 3600, false, "https://a.cn/1", "https://a.cn/2").getIsNewList());

            clock.advance(Duration.ofHours(5));
            assertTrue(s.simdex.service().sweepExpiredUrls() >= 3, "the sweep removes expired entries");
        }
        try (TestServer s = new TestServer(dir, clock)) {
            check(s, "job_200", 3600, false, "https://b.cn/1");
        }
        try (TestServer s = new TestServer(dir, clock)) {
            assertEquals(List.of(false), check(s, "job_200", 3600, false, "https://b.cn/1").getIsNewList(), "seen-sets survive a restart");
            assertTrue(s.stub().dropUrlJob(DropUrlJobRequest.newBuilder().setJob("job_200").build()).getExisted());
            assertEquals(List.of(true), check(s, "job_200", 3600, false, "https://b.cn/1").getIsNewList(), "a dropped job starts empty");
        }
    }

    @Test
    void checkUrls_concurrentCrawlers_eachUrlNewExactlyOnce() throws Exception {
        int urls = 2000;
        int crawlers = 8;
        AtomicIntegerArray newCount = new AtomicIntegerArray(urls);
        try (TestServer s = new TestServer(dir, clock)) {
            ExecutorService pool = Executors.newFixedThreadPool(crawlers);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < crawlers; c++) {
                int offset = c * 137;
                done.add(pool.submit(() -> {
                    for (int from = 0; from < urls; from += 250) {
                        CheckUrlsRequest.Builder req = CheckUrlsRequest.newBuilder().setJob("race");
                        for (int i = from; i < from + 250; i++) {
                            req.addUrls("https://news.example/" + ((i + offset) % urls));
                        }
                        List<Boolean> fresh = s.stub().checkUrls(req.build()).getIsNewList();
                        for (int i = 0; i < fresh.size(); i++) {
                            if (fresh.get(i)) {
                                newCount.incrementAndGet((from + i + offset) % urls);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
            pool.shutdown();
        }
        for (int i = 0; i < urls; i++) {
            assertEquals(1, newCount.get(i), "URL " + i + " reported new " + newCount.get(i) + " times");
        }
    }

    @Test
    void checkUrls_badInput_invalidArgumentAndNothingRecorded() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            for (CheckUrlsRequest bad : List.of(
                    CheckUrlsRequest.newBuilder().addUrls("https://x").build(),
                    CheckUrlsRequest.newBuilder().setJob("a b").addUrls("https://x").build(),
                    CheckUrlsRequest.newBuilder().setJob("j").build(),
                    CheckUrlsRequest.newBuilder().setJob("j").addUrls("https://x").addUrls("").build(),
                    CheckUrlsRequest.newBuilder().setJob("j").addUrls("https://x").setTtlSeconds(Long.MAX_VALUE).build())) {
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> s.stub().checkUrls(bad));
                assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), bad.toString());
            }
            assertFalse(check(s, "j", 60, true, "https://x").getIsNewList().contains(false), "nothing of a rejected call was recorded");
        }
    }

    @Test
    void checkUrls_canonical_spellingsOfOneAddressAreOneUrl_andWhatIsNoUrlIsRefusedWhole() throws Exception {
        try (TestServer s = new TestServer(dir, clock)) {
            CheckUrlsResponse first = canonical(s, "https://a.cn/1", "HTTPS://A.cn:443/1#top", "https://a.cn/./x/../1", "https://a.cn/1?");
            assertEquals(List.of(true, false, false, false), first.getIsNewList());
            assertEquals(List.of(false, true), canonical(s, "https://a.cn/%31", "https://a.cn/1/").getIsNewList());
            assertEquals(List.of(true), check(s, "job_7", 3600, false, "HTTPS://A.cn/1").getIsNewList(),
                    "without canonical a URL is compared as given");

            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> canonical(s, "https://b.cn/new", "b.cn/page"));
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
            assertEquals("urls[1] has no scheme (http://, https://, ...): \"b.cn/page\"", e.getStatus().getDescription());
            assertEquals(List.of(true), canonical(s, "https://b.cn/new").getIsNewList(), "nothing of the refused call was recorded");
        }
    }

    private static CheckUrlsResponse canonical(TestServer s, String... urls) {
        return s.stub().checkUrls(CheckUrlsRequest.newBuilder().setJob("job_7").setTtlSeconds(3600).setCanonical(true)
                .addAllUrls(List.of(urls)).build());
    }

    private static CheckUrlsResponse check(TestServer s, String job, long ttl, boolean checkOnly, String... urls) {
        return s.stub().checkUrls(CheckUrlsRequest.newBuilder().setJob(job).setTtlSeconds(ttl).setCheckOnly(checkOnly)
                .addAllUrls(List.of(urls)).build());
    }
}
