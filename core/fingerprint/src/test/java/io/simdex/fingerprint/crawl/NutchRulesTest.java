package io.simdex.fingerprint.crawl;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NutchRulesTest {
    private static final byte KEPT = NutchRules.UNDECIDED;
    private static final byte OLDER_FETCH = 1;
    private static final byte DUPLICATE_CONTENT = 2;
    private static final byte DECIDED_BY_CALLER = 3;

    /** One crawled page; null fields are absent. */
    record Page(String url, Long fetchTime, Double score, String content) {
    }

    /** Pages as columns, URLs as UTF-8 bytes as a caller would keep them. */
    static final class Pages implements CrawlColumns {
        final List<Page> pages;
        private final byte[][] urls;
        private final ContentHash[] hashes;

        Pages(List<Page> pages) {
            this.pages = pages;
            this.urls = pages.stream().map(p -> p.url() == null ? null : p.url().getBytes(StandardCharsets.UTF_8))
                    .toArray(byte[][]::new);
            this.hashes = pages.stream().map(p -> p.content() == null ? null : ContentHash.of(p.content()))
                    .toArray(ContentHash[]::new);
        }

        @Override public int size() { return pages.size(); }
        @Override public boolean hasUrl(int doc) { return urls[doc] != null; }
        @Override public int urlLength(int doc) { return urls[doc].length; }
        @Override public int compareUrls(int a, int b) { return Arrays.compareUnsigned(urls[a], urls[b]); }
        @Override public long fetchTime(int doc) {
            Long t = pages.get(doc).fetchTime();
            return t == null ? Long.MIN_VALUE : t;
        }
        @Override public double score(int doc) {
            Double s = pages.get(doc).score();
            return s == null ? 0 : s;
        }
        @Override public boolean hasContent(int doc) { return hashes[doc] != null; }
        @Override public long contentHigh(int doc) { return hashes[doc].high(); }
        @Override public long contentLow(int doc) { return hashes[doc].low(); }
    }

    /** What the rules decided: per page its state and, when dropped, its winner (else -1). */
    record Decisions(byte[] state, int[] winner) {
        int[] kept() {
            return IntStream.range(0, state.length).filter(i -> state[i] == KEPT).toArray();
        }

        String of(int i) {
            return state[i] == KEPT ? "kept" : (state[i] == OLDER_FETCH ? "older-fetch" : "duplicate-content") + " of " + winner[i];
        }
    }

    private static Decisions urlThenContent(Pages pages) {
        return run(pages, true);
    }

    private static Decisions run(Pages pages, boolean urlFirst) {
        int[] rank = ranks(NutchRules.priorityOrder(pages));
        byte[] state = new byte[pages.size()];
        int[] winner = new int[pages.size()];
        Arrays.fill(winner, -1);
        if (urlFirst) {
            NutchRules.dropOlderFetches(pages, rank, state, winner, OLDER_FETCH);
            NutchRules.dropDuplicateContent(pages, rank, state, winner, DUPLICATE_CONTENT);
        } else {
            NutchRules.dropDuplicateContent(pages, rank, state, winner, DUPLICATE_CONTENT);
            NutchRules.dropOlderFetches(pages, rank, state, winner, OLDER_FETCH);
        }
        return new Decisions(state, winner);
    }

    /** The data model of the Chinese write-up of Nutch's dedup: url, fetch time, content, score. */
    private static Pages seedExample(double bcnScore) {
        return pages(
                page("a.cn", "2011-01-01", "a", 2),
                page("a.cn", "2011-07-01", "b", 4),
                page("a.cn", "2011-05-01", "a", 1),
                page("b.cn", "2011-04-01", "b", bcnScore));
    }

    @Test
    void apply_seedExample_urlThenContentKeepsOnlyTheNewestACn() {
        Decisions d = urlThenContent(seedExample(2));

        // Round one (URL) leaves a.cn 2011-7-1 and b.cn; round two (content b) keeps the score-4 one.
        assertEquals(List.of("older-fetch of 1", "kept", "older-fetch of 1", "duplicate-content of 1"), all(d));
    }

    @Test
    void apply_seedExampleContentFirst_sameKeptRecordOtherReasons() {
        Decisions urlFirst = urlThenContent(seedExample(2));
        Decisions contentFirst = run(seedExample(2), false);

        // The write-up's "reversible" claim holds for its example: the same page survives...
        assertArrayEquals(new int[] {1}, contentFirst.kept());
        assertArrayEquals(urlFirst.kept(), contentFirst.kept());
        // ...but a.cn 2011-5-1 now falls to its content twin, not to the newer fetch.
        assertEquals("duplicate-content of 0", contentFirst.of(2));
        assertEquals("older-fetch of 1", contentFirst.of(0));
    }

    @Test
    void apply_seedVariantBcnScoresHigher_ordersDisagreeOnMToN() {
        // URL first: a.cn's newest content b loses to b.cn, and its older unique content a was
        // already gone, so a.cn vanishes ("如果b.cn的评分比a.cn高时，则为另一結果").
        assertArrayEquals(new int[] {3}, urlThenContent(seedExample(5)).kept());
        // Content first: a survives as a.cn's only page left, a fetch the site no longer serves.
        assertArrayEquals(new int[] {0, 3}, run(seedExample(5), false).kept());
    }

    @Test
    void apply_winnerDroppedByLaterRule_chainEndsAtKept() {
        Decisions d = urlThenContent(seedExample(5));

        assertEquals("older-fetch of 1", d.of(0));
        assertEquals("duplicate-content of 3", d.of(1));
        assertEquals("kept", d.of(3));
    }

    @Test
    void apply_oneUrlManyContents_keepsOnlyTheNewestFetch() {
        Pages pages = pages(
                page("news.cn/live", "2024-01-01", "updated 09:00", 1),
                page("news.cn/live", "2024-01-03", "updated 11:00", 1),
                page("news.cn/live", "2024-01-02", "updated 10:00", 9));

        Decisions d = urlThenContent(pages);

        assertArrayEquals(new int[] {1}, d.kept());
        assertEquals("older-fetch of 1", d.of(2), "score does not beat a newer fetch");
    }

    @Test
    void apply_oneContentManyUrls_keepsHighestScoreThenShortestThenSmallestUrl() {
        String notFound = "404 page not found";
        List<Page> all = List.of(
                page("x.cn/missing/long", "2024-01-01", notFound, 1),
                page("x.cn/b", "2024-01-01", notFound, 1),
                page("x.cn/a", "2024-01-01", notFound, 1),
                page("x.cn/zzzzzzzzzz", "2024-01-01", notFound, 3));

        assertArrayEquals(new int[] {3}, urlThenContent(new Pages(all)).kept());
        Decisions tied = urlThenContent(new Pages(all.subList(0, 3)));
        assertArrayEquals(new int[] {2}, tied.kept(), "equal scores: shortest, then smallest URL");
        assertEquals("duplicate-content of 2", tied.of(0));
    }

    @Test
    void apply_sameUrlSameFetchTime_higherScoreWins() {
        Pages pages = pages(page("a.cn", "2024-01-01", "one", 1), page("a.cn", "2024-01-01", "two", 2));

        assertArrayEquals(new int[] {1}, urlThenContent(pages).kept());
    }

    @Test
    void apply_identicalPages_earliestWins() {
        Pages pages = pages(page("a.cn", "2024-01-01", "x", 1), page("a.cn", "2024-01-01", "x", 1));

        assertEquals(List.of("kept", "older-fetch of 0"), all(urlThenContent(pages)));
    }

    @Test
    void dropOlderFetches_absentFetchTime_losesToAnyFetch() {
        Pages pages = new Pages(List.of(new Page("a.cn", null, 9.0, "x"), new Page("a.cn", Long.MIN_VALUE + 1, null, "y")));

        assertEquals(List.of("older-fetch of 1", "kept"), all(urlThenContent(pages)));
    }

    @Test
    void apply_noUrlOrNoContent_neverDroppedByThatRule() {
        Pages pages = new Pages(List.of(
                new Page(null, null, null, "same"),
                new Page(null, null, null, "same"),
                new Page("a.cn", 1L, null, null),
                new Page("a.cn", 2L, null, null),
                new Page(null, null, null, null)));

        assertEquals(List.of("kept", "duplicate-content of 0", "older-fetch of 3", "kept", "kept"), all(urlThenContent(pages)));
    }

    @Test
    void apply_decidedByCaller_neitherDroppedNorWinner() {
        Pages pages = new Pages(List.of(new Page("a.cn", 2L, null, "x"), new Page("a.cn", 1L, null, "x"),
                new Page("b.cn", 1L, null, "x")));
        int[] rank = ranks(NutchRules.priorityOrder(pages));
        byte[] state = {DECIDED_BY_CALLER, KEPT, KEPT};
        int[] winner = {-1, -1, -1};

        NutchRules.dropOlderFetches(pages, rank, state, winner, OLDER_FETCH);
        NutchRules.dropDuplicateContent(pages, rank, state, winner, DUPLICATE_CONTENT);

        // Page 0, newest a.cn and first by URL for content x, would have won both rules had it
        // been undecided; without it page 1 keeps a.cn and beats b.cn on content (a.cn < b.cn).
        assertArrayEquals(new byte[] {DECIDED_BY_CALLER, KEPT, DUPLICATE_CONTENT}, state);
        assertArrayEquals(new int[] {-1, -1, 1}, winner);
    }

    @Test
    void priorityOrder_noUrlsNoScores_inputOrder() {
        Pages pages = new Pages(List.of(new Page(null, 5L, null, "b"), new Page(null, 9L, 0.0, "a"), new Page(null, null, null, null)));

        assertArrayEquals(new int[] {0, 1, 2}, NutchRules.priorityOrder(pages));
        assertArrayEquals(new int[] {}, NutchRules.priorityOrder(new Pages(List.of())));
    }

    @Test
    void priorityOrder_scoreThenUrlPresentThenUtf8LengthThenCodePoints() {
        Pages pages = new Pages(List.of(
                new Page(null, null, null, null),
                new Page("éé", null, null, null),
                new Page("abc", null, null, null),
                new Page("abd", null, null, null),
                new Page("zzzzzzzz", null, 1.0, null),
                new Page(null, null, -0.0, null)));

        // "éé" is 2 chars but 4 UTF-8 bytes, so "abc" (3 bytes) is shorter; -0.0 sorts below +0.0.
        assertArrayEquals(new int[] {4, 2, 3, 1, 0, 5}, NutchRules.priorityOrder(pages));
    }

    @Test
    void apply_randomBatches_invariantsHoldInBothOrders() {
        Random random = new Random(20240607L);
        for (int trial = 0; trial < 200; trial++) {
            Pages pages = new Pages(randomBatch(random, 1 + random.nextInt(40)));
            for (boolean urlFirst : new boolean[] {true, false}) {
                assertInvariants(pages, run(pages, urlFirst));
            }
        }
    }

    @Test
    void apply_shuffledInputWithoutFullTies_keepsTheSamePages() {
        Random random = new Random(7);
        for (int trial = 0; trial < 100; trial++) {
            List<Page> pages = withoutTies(randomBatch(random, 30));
            List<Page> shuffled = new ArrayList<>(pages);
            Collections.shuffle(shuffled, random);

            assertEquals(keptPages(pages), keptPages(shuffled));
        }
    }

    @Test
    void apply_badArguments_rejected() {
        Pages pages = pages(page("a.cn", "2024-01-01", "x", 1), page("a.cn", "2024-01-01", "x", 1));
        int[] rank = {0, 1};
        assertThrows(IllegalArgumentException.class,
                () -> NutchRules.dropOlderFetches(pages, rank, new byte[2], new int[2], NutchRules.UNDECIDED));
        assertThrows(IllegalArgumentException.class,
                () -> NutchRules.dropDuplicateContent(pages, rank, new byte[1], new int[2], DUPLICATE_CONTENT));
        assertThrows(IllegalArgumentException.class,
                () -> NutchRules.dropOlderFetches(pages, new int[1], new byte[2], new int[2], OLDER_FETCH));
        assertEquals(List.of(), all(urlThenContent(new Pages(List.of()))));
    }

    private static void assertInvariants(Pages pages, Decisions d) {
        Set<String> urls = new HashSet<>();
        Set<String> contents = new HashSet<>();
        for (int i = 0; i < pages.size(); i++) {
            Page p = pages.pages.get(i);
            if (d.state()[i] == KEPT) {
                assertTrue(urls.add(p.url()), "two kept pages of " + p.url());
                assertTrue(contents.add(p.content()), "two kept pages of content " + p.content());
            } else {
                int w = d.winner()[i];
                Page winner = pages.pages.get(w);
                assertNotEquals(i, w);
                if (d.state()[i] == OLDER_FETCH) {
                    assertEquals(p.url(), winner.url());
                    assertTrue(winner.fetchTime() >= p.fetchTime());
                } else {
                    assertEquals(p.content(), winner.content());
                    assertTrue(winner.score() >= p.score());
                }
                assertEquals(KEPT, d.state()[survivor(d, i)]);
            }
        }
    }

    /** Follows winners to a kept page; each step moves to a page a later rule decided, so at most two. */
    private static int survivor(Decisions d, int i) {
        int at = i;
        for (int steps = 0; d.state()[at] != KEPT; steps++) {
            assertTrue(steps < 2, "winner chain longer than the rules at " + i);
            at = d.winner()[at];
        }
        return at;
    }

    private static List<Page> randomBatch(Random random, int size) {
        List<Page> out = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            out.add(new Page("u" + random.nextInt(8) + ".cn", (long) random.nextInt(5), (double) random.nextInt(4),
                    "c" + random.nextInt(8)));
        }
        return out;
    }

    /**
     * Drops pages that tie with an earlier one on every key a rule compares before position
     * (URL, fetch time, score for the URL rule; content, score, URL for the content rule), so
     * that input position never breaks a tie.
     */
    private static List<Page> withoutTies(List<Page> pages) {
        Set<List<Object>> urlKeys = new HashSet<>();
        Set<List<Object>> contentKeys = new HashSet<>();
        List<Page> out = new ArrayList<>();
        for (Page p : pages) {
            List<Object> urlKey = List.of(p.url(), p.fetchTime(), p.score());
            List<Object> contentKey = List.of(p.content(), p.score(), p.url());
            if (!urlKeys.contains(urlKey) && !contentKeys.contains(contentKey)) {
                urlKeys.add(urlKey);
                contentKeys.add(contentKey);
                out.add(p);
            }
        }
        return out;
    }

    private static Set<Page> keptPages(List<Page> pages) {
        Set<Page> out = new HashSet<>();
        for (int i : urlThenContent(new Pages(pages)).kept()) {
            out.add(pages.get(i));
        }
        return out;
    }

    private static List<String> all(Decisions d) {
        return IntStream.range(0, d.state().length).mapToObj(d::of).toList();
    }

    private static int[] ranks(int[] order) {
        int[] rank = new int[order.length];
        for (int r = 0; r < order.length; r++) {
            rank[order[r]] = r;
        }
        return rank;
    }

    private static Pages pages(Page... pages) {
        return new Pages(List.of(pages));
    }

    private static Page page(String url, String date, String content, double score) {
        long fetch = LocalDate.parse(date).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        return new Page(url, fetch, score, content);
    }
}
