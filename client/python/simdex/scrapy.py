"""Scrapy integration: a request dupefilter backed by a simdex URL seen-set, and an item pipeline
that drops near-duplicate pages with simdex's Dedup.

    DUPEFILTER_CLASS = "simdex.scrapy.SimdexDupeFilter"
    ITEM_PIPELINES = {"simdex.scrapy.SimdexDedupPipeline": 300}

Settings (all optional):

====================  ===================  ==========================================================
SIMDEX_TARGET         ``localhost:7411``   host:port of the simdex server or router
SIMDEX_TOKEN          none                 sent as ``authorization: Bearer <token>`` (see ``simdex.Client``)
SIMDEX_TLS            False                True: TLS with the system's root certificates
SIMDEX_TLS_CA         none                 TLS with the root certificates in this PEM file
SIMDEX_TIMEOUT        10                   deadline of each call, seconds
SIMDEX_JOB            the spider's name    the URL seen-set: 1..64 of ``[A-Za-z0-9_-]``
SIMDEX_URL_TTL        0                    seconds a request stays seen; 0: the server's 7 days
SIMDEX_COLLECTION     ``default``          the collection kept documents go to (must exist)
SIMDEX_TEXT_FIELD     ``text``             the item field holding the text to deduplicate
SIMDEX_ID_FIELD       ``url``              the item field holding the kept document's id
SIMDEX_BATCH_SIZE     100                  items per Dedup call, 1..10,000
SIMDEX_BATCH_DELAY    0.1                  seconds a batch waits at most to fill before it is sent
====================  ===================  ==========================================================

Counts in the crawl's stats: ``simdex/urls/new``, ``simdex/urls/seen``, ``simdex/urls/errors`` and
Scrapy's ``dupefilter/filtered``; ``simdex/dedup/kept``, ``dropped``, ``skipped`` (no text),
``errors`` and ``calls``. Both fail open: when a call fails (after the client's retries) the
request counts as new and is fetched, the items are kept, and the ``errors`` count says so.
"""
import logging
import re
import time

from itemadapter import ItemAdapter
from scrapy.dupefilters import BaseDupeFilter
from scrapy.exceptions import DropItem
from twisted.internet import defer, threads

from simdex.client import MAX_BATCH, Client
from simdex.errors import SimdexError

logger = logging.getLogger(__name__)

_JOB = re.compile(r"[A-Za-z0-9_-]{1,64}")
_SERVER_DEFAULT_TTL = 7 * 24 * 3600


def client_from_settings(settings) -> Client:
    """A ``simdex.Client`` configured by SIMDEX_TARGET, SIMDEX_TOKEN, SIMDEX_TLS(_CA), SIMDEX_TIMEOUT."""
    tls = settings.get("SIMDEX_TLS_CA") or (True if settings.getbool("SIMDEX_TLS") else None)
    return Client(settings.get("SIMDEX_TARGET", "localhost:7411"), token=settings.get("SIMDEX_TOKEN") or None,
                  tls=tls, timeout=settings.getfloat("SIMDEX_TIMEOUT", 10.0))


class SimdexDupeFilter(BaseDupeFilter):
    """Keeps the seen-set of request fingerprints in the crawl job's simdex URL set (CheckUrls), so
    every Scrapy process of one job (same SIMDEX_JOB) shares it and a later crawl of the job skips
    what an earlier one scheduled, for SIMDEX_URL_TTL seconds. The key is Scrapy's request
    fingerprint (method, canonical URL, body) in hex, as RFPDupeFilter uses it. Like
    RFPDupeFilter, it also keeps the fingerprints this process has met in memory (until their TTL
    ends), which saves the call for the many links to one page; any other costs one blocking
    CheckUrls call."""

    def __init__(self, client, job, ttl_seconds, fingerprinter, stats=None, debug=False):
        if not _JOB.fullmatch(job or ""):
            raise ValueError("SIMDEX_JOB must be 1..64 characters of [A-Za-z0-9_-] (default: the spider's name); "
                             "got %r" % (job,))
        self.client, self.job, self.ttl_seconds = client, job, ttl_seconds
        self.fingerprinter, self.stats, self.debug = fingerprinter, stats, debug
        self._local_ttl = ttl_seconds or _SERVER_DEFAULT_TTL
        self._seen = {}  # request fingerprint -> time.monotonic() at which it stops being seen

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        job = s.get("SIMDEX_JOB") or crawler.spider.name
        return cls(client_from_settings(s), job, s.getint("SIMDEX_URL_TTL", 0), crawler.request_fingerprinter,
                   crawler.stats, s.getbool("DUPEFILTER_DEBUG"))

    def request_seen(self, request) -> bool:
        key = self.fingerprinter.fingerprint(request).hex()
        now = time.monotonic()
        if self._seen.get(key, 0) > now:
            return True
        try:
            is_new = self.client.check_urls(self.job, [key], ttl_seconds=self.ttl_seconds)[0]
        except SimdexError as e:
            self._inc("simdex/urls/errors")
            logger.warning("simdex CheckUrls failed, scheduling %s anyway: %s", request, e)
            return False
        self._seen[key] = now + self._local_ttl
        self._inc("simdex/urls/new" if is_new else "simdex/urls/seen")
        return not is_new

    def log(self, request, spider):
        if self.debug:
            logger.debug("Filtered duplicate request: %(request)s", {"request": request}, extra={"spider": spider})
        self._inc("dupefilter/filtered")

    def close(self, reason):
        self.client.close()

    def _inc(self, key):
        if self.stats is not None:
            self.stats.inc_value(key)


class SimdexDedupPipeline:
    """Drops items whose text is a near-duplicate (Dedup, within the collection's max distance) of
    a document already in SIMDEX_COLLECTION, with ``DropItem``; a kept item's document is stored
    under the item's SIMDEX_ID_FIELD. Items go to simdex in batches of SIMDEX_BATCH_SIZE, or
    whatever has arrived SIMDEX_BATCH_DELAY seconds after a batch's first item, one call at a
    time so that items are decided in the order they arrive. Items without text pass unchanged
    (``simdex/dedup/skipped``)."""

    def __init__(self, client, collection, text_field, id_field, batch_size, batch_delay, stats=None):
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError("SIMDEX_BATCH_SIZE must be 1..%d, got %r" % (MAX_BATCH, batch_size))
        self.client, self.collection, self.text_field, self.id_field = client, collection, text_field, id_field
        self.batch_size, self.batch_delay, self.stats = batch_size, batch_delay, stats
        self._pending = []  # (id, text, item, Deferred) in arrival order
        self._timer = None
        self._in_flight = False
        self._closed = None

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        return cls(client_from_settings(s), s.get("SIMDEX_COLLECTION") or "default", s.get("SIMDEX_TEXT_FIELD", "text"),
                   s.get("SIMDEX_ID_FIELD", "url"), s.getint("SIMDEX_BATCH_SIZE", 100),
                   s.getfloat("SIMDEX_BATCH_DELAY", 0.1), crawler.stats)

    def open_spider(self, spider):
        """Fails the crawl's start (NotFound) if the collection does not exist."""
        self.client.stats(self.collection)

    def process_item(self, item, spider):
        adapter = ItemAdapter(item)
        text, doc_id = adapter.get(self.text_field), adapter.get(self.id_field)
        if not isinstance(text, str) or not text.strip() or not doc_id:
            self._inc("simdex/dedup/skipped")
            return item
        decided = defer.Deferred()
        self._pending.append((str(doc_id), text, item, decided))
        if len(self._pending) >= self.batch_size:
            self._flush()
        elif self._timer is None:
            from twisted.internet import reactor  # here: importing it installs one, Scrapy picks which
            self._timer = reactor.callLater(self.batch_delay, self._flush)
        return decided

    def close_spider(self, spider):
        self._closed = defer.Deferred()
        self._closed.addBoth(lambda result: self.client.close() or result)
        self._flush()
        return self._closed

    def _flush(self):
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        if self._in_flight:
            return  # _done sends the rest
        if not self._pending:
            if self._closed is not None and not self._closed.called:
                self._closed.callback(None)
            return
        batch, self._pending = self._pending[:self.batch_size], self._pending[self.batch_size:]
        self._in_flight = True
        self._inc("simdex/dedup/calls")
        d = threads.deferToThread(self.client.dedup, [(i, t) for i, t, _, _ in batch], self.collection, limit=1)
        d.addCallbacks(self._decided, self._failed, callbackArgs=(batch,), errbackArgs=(batch,))
        d.addBoth(self._done)

    def _decided(self, results, batch):
        for r, (_, _, item, decided) in zip(results, batch):
            if r.inserted:
                self._inc("simdex/dedup/kept")
                decided.callback(item)
            else:
                self._inc("simdex/dedup/dropped")
                first = r.duplicates[0] if r.duplicates else None
                decided.errback(DropItem("near-duplicate of %s (distance %d)" % (first.id, first.distance) if first
                                         else "near-duplicate"))

    def _failed(self, failure, batch):
        logger.error("simdex Dedup failed, keeping %d item(s): %s", len(batch), failure.value)
        for _, _, item, decided in batch:
            self._inc("simdex/dedup/errors")
            decided.callback(item)

    def _done(self, _):
        self._in_flight = False
        self._flush()

    def _inc(self, key):
        if self.stats is not None:
            self.stats.inc_value(key)
