package io.simdex.core.crawl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simdex.core.crawl.Verdict.Reason;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NutchDedupTest {
    private static final List<Rule> CONTENT_FIRST = List.of(Rule.CONTENT, Rule.URL);

    /** The data model of shared/seeds/001: url, fetch time, content, score. */
    private static List<CrawlRecord> seedExample(double bcnScore) {
        return List.of(
                record("a.cn", "2011-01-01", "a", 2),
                record("a.cn", "2011-07-01", "b", 4),
                record("a.cn", "2011-05-01", "a", 1),
                record("b.cn", "2011-04-01", "b", bcnScore));
    }

    @Test
    void apply_seedExample_urlThenContentKeepsOnlyTheNewestACn() {
        List<Verdict> v = NutchDedup.apply(seedExample(2));

        // Round one (URL) leaves a.cn 2011-7-1 and b.cn; round two (content b) keeps the score-4 one.
        assertEquals(List.of(
                new Verdict(Reason.OLDER_FETCH_OF_URL, 1),
                new Verdict(Reason.KEPT, 1),
                new Verdict(Reason.OLDER_FETCH_OF_URL, 1),
                new Verdict(Reason.DUPLICATE_CONTENT, 1)), v);
    }

    @Test
    void apply_seedExampleContentFirst_sameKeptRecordOtherReasons() {
        List<Verdict> urlFirst = NutchDedup.apply(seedExample(2));
        List<Verdict> contentFirst = NutchDedup.apply(seedExample(2), CONTENT_FIRST);

        // The seed's "reversible" claim holds for its example: the same record survives...
        assertArrayEquals(new int[] {1}, NutchDedup.kept(contentFirst));
        assertArrayEquals(NutchDedup.kept(urlFirst), NutchDedup.kept(contentFirst));
        // ...but a.cn 2011-5-1 now falls to its content twin, not to the newer fetch.
        assertEquals(new Verdict(Reason.DUPLICATE_CONTENT, 0), contentFirst.get(2));
        assertEquals(new Verdict(Reason.OLDER_FETCH_OF_URL, 1), contentFirst.get(0));
    }

    @Test
    void apply_seedVariantBcnScoresHigher_ordersDisagreeOnMToN() {
        List<CrawlRecord> records = seedExample(5);

        // URL first: a.cn's newest content b loses to b.cn, and its older unique content a was
        // already gone, so a.cn vanishes ("如果b.cn的评分比a.cn高时，则为另一結果").
        assertArrayEquals(new int[] {3}, NutchDedup.kept(NutchDedup.apply(records)));
        // Content first: a survives as a.cn's only record left, a fetch the site no longer serves.
        List<Verdict> contentFirst = NutchDedup.apply(records, CONTENT_FIRST);
        assertArrayEquals(new int[] {0, 3}, NutchDedup.kept(contentFirst));
    }

    @Test
    void apply_oneUrlManyContents_keepsOnlyTheNewestFetch() {
        List<CrawlRecord> records = List.of(
                record("news.cn/live", "2024-01-01", "updated 09:00", 1),
                record("news.cn/live", "2024-01-03", "updated 11:00", 1),
                record("news.cn/live", "2024-01-02", "updated 10:00", 9));

        List<Verdict> v = NutchDedup.apply(records);

        assertArrayEquals(new int[] {1}, NutchDedup.kept(v));
        assertEquals(new Verdict(Reason.OLDER_FETCH_OF_URL, 1), v.get(2), "score does not beat a newer fetch");
    }

    @Test
    void apply_oneContentManyUrls_keepsHighestScoreThenShortestThenSmallestUrl() {
        String notFound = "404 page not found";
        List<CrawlRecord> records = List.of(
                record("x.cn/missing/long", "2024-01-01", notFound, 1),
                record("x.cn/b", "2024-01-01", notFound, 1),
                record("x.cn/a", "2024-01-01", notFound, 1),
                record("x.cn/zzzzzzzzzz", "2024-01-01", notFound, 3));

        assertArrayEquals(new int[] {3}, NutchDedup.kept(NutchDedup.apply(records)));
        List<CrawlRecord> tied = records.subList(0, 3);
        List<Verdict> v = NutchDedup.apply(tied);
        assertArrayEquals(new int[] {2}, NutchDedup.kept(v), "equal scores: shortest, then smallest URL");
        assertEquals(new Verdict(Reason.DUPLICATE_CONTENT, 2), v.get(0));
    }

    @Test
    void apply_sameUrlSameFetchTime_higherScoreWins() {
        List<CrawlRecord> records = List.of(
                record("a.cn", "2024-01-01", "one", 1),
                record("a.cn", "2024-01-01", "two", 2));

        assertArrayEquals(new int[] {1}, NutchDedup.kept(NutchDedup.apply(records)));
    }

    @Test
    void apply_identicalRecords_earliestWins() {
        List<CrawlRecord> records = List.of(record("a.cn", "2024-01-01", "x", 1), record("a.cn", "2024-01-01", "x", 1));

        assertEquals(List.of(new Verdict(Reason.KEPT, 0), new Verdict(Reason.OLDER_FETCH_OF_URL, 0)),
                NutchDedup.apply(records));
    }

    @Test
    void survivor_droppedByUrlThenWinnerDroppedByContent_followsChainToKept() {
        List<Verdict> v = NutchDedup.apply(seedExample(5));

        assertEquals(new Verdict(Reason.OLDER_FETCH_OF_URL, 1), v.get(0));
        assertEquals(new Verdict(Reason.DUPLICATE_CONTENT, 3), v.get(1));
        assertEquals(3, NutchDedup.survivor(v, 0));
        assertEquals(3, NutchDedup.survivor(v, 3));
    }

    @Test
    void apply_randomBatches_invariantsHoldInBothOrders() {
        Random random = new Random(20240607L);
        for (int trial = 0; trial < 200; trial++) {
            List<CrawlRecord> records = randomBatch(random, 1 + random.nextInt(40));
            for (List<Rule> order : List.of(List.of(Rule.URL, Rule.CONTENT), CONTENT_FIRST)) {
                assertInvariants(records, NutchDedup.apply(records, order));
            }
        }
    }

    @Test
    void apply_shuffledInput_keepsTheSameRecords() {
        Random random = new Random(7);
        for (int trial = 0; trial < 100; trial++) {
            List<CrawlRecord> records = distinctFields(randomBatch(random, 30));
            List<CrawlRecord> shuffled = new ArrayList<>(records);
            Collections.shuffle(shuffled, random);

            assertEquals(keptRecords(records), keptRecords(shuffled));
        }
    }

    @Test
    void apply_badArguments_rejected() {
        assertThrows(IllegalArgumentException.class, () -> NutchDedup.apply(List.of(), List.of(Rule.URL, Rule.URL)));
        List<CrawlRecord> withNull = new ArrayList<>();
        withNull.add(null);
        assertThrows(IllegalArgumentException.class, () -> NutchDedup.apply(withNull));
        assertThrows(IllegalArgumentException.class, () -> record("a.cn", "2024-01-01", "x", Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> record("", "2024-01-01", "x", 1));
        assertEquals(List.of(), NutchDedup.apply(List.of()));
    }

    private static void assertInvariants(List<CrawlRecord> records, List<Verdict> verdicts) {
        Set<String> urls = new HashSet<>();
        Set<ContentHash> contents = new HashSet<>();
        for (int i = 0; i < records.size(); i++) {
            Verdict v = verdicts.get(i);
            CrawlRecord r = records.get(i);
            if (v.keep()) {
                assertEquals(i, v.winner());
                assertTrue(urls.add(r.url()), "two kept records of " + r.url());
                assertTrue(contents.add(r.content()), "two kept records of content " + r.content());
            } else {
                CrawlRecord w = records.get(v.winner());
                assertNotEquals(i, v.winner());
                if (v.reason() == Reason.OLDER_FETCH_OF_URL) {
                    assertEquals(r.url(), w.url());
                    assertTrue(w.fetchTime() >= r.fetchTime());
                } else {
                    assertEquals(r.content(), w.content());
                    assertTrue(w.score() >= r.score());
                }
                assertTrue(verdicts.get(NutchDedup.survivor(verdicts, i)).keep());
            }
        }
    }

    private static List<CrawlRecord> randomBatch(Random random, int size) {
        List<CrawlRecord> out = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            out.add(new CrawlRecord("u" + random.nextInt(8) + ".cn", random.nextInt(5), random.nextInt(4),
                    ContentHash.of("c" + random.nextInt(8))));
        }
        return out;
    }

    /** Drops records equal in every field, so that input position never breaks a tie. */
    private static List<CrawlRecord> distinctFields(List<CrawlRecord> records) {
        return new ArrayList<>(new LinkedHashSet<>(records));
    }

    private static Set<CrawlRecord> keptRecords(List<CrawlRecord> records) {
        List<Verdict> v = NutchDedup.apply(records);
        Set<CrawlRecord> out = new HashSet<>();
        for (int i : NutchDedup.kept(v)) {
            out.add(records.get(i));
        }
        return out;
    }

    private static CrawlRecord record(String url, String date, String content, double score) {
        long fetch = LocalDate.parse(date).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        return CrawlRecord.ofText(url, fetch, score, content);
    }
}
