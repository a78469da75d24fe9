"""Real Scrapy crawls of a local site through simdex's dupefilter and pipeline (SIMDEX_TARGET)."""
import uuid
from collections import Counter

import pytest

pytest.importorskip("scrapy")

import crawl  # noqa: E402
from local_site import COPIES, COPY_OF, ORIGINALS, LocalSite  # noqa: E402

SIMDEX = crawl.SIMDEX_SETTINGS


@pytest.fixture
def site():
    with LocalSite() as s:
        yield s


@pytest.fixture
def job_settings(target, collection):
    return {**SIMDEX, "SIMDEX_TARGET": target, "SIMDEX_COLLECTION": collection,
            "SIMDEX_JOB": "py_" + uuid.uuid4().hex[:12]}


def test_siteFixture_copiesNearAndOriginalsFar(client, site, collection):
    texts = {path: site.pages[path][0] for path in ORIGINALS + COPIES}
    fp = dict(zip(texts, client.fingerprint(texts.values(), collection)))
    distance = lambda a, b: bin(fp[a] ^ fp[b]).count("1")  # noqa: E731

    assert {c: distance(c, o) > 0 for c, o in COPY_OF.items()} == {
        "/copy/1": True, "/mirror/news/2": False, "/copy/3": True, "/news/3?utm_source=feed": False}
    assert max(distance(c, o) for c, o in COPY_OF.items()) <= 3
    assert min(distance(a, b) for a in ORIGINALS for b in ORIGINALS if a < b) > 10


def test_crawl_nearCopiesAndMirrors_droppedUniquePagesKept(client, site, collection, job_settings, tmp_path):
    report = crawl.run(tmp_path, [site.url + "/"], job_settings)

    assert sorted(report["kept"]) == sorted(site.url + p for p in ORIGINALS)
    assert sorted(report["dropped"]) == sorted(site.url + p for p in COPIES)
    assert "near-duplicate of %s/news/2 (distance 0)" % site.url == report["dropped"][site.url + "/mirror/news/2"]
    assert Counter(site.requests) == Counter(["/"] + ORIGINALS + COPIES), "each page fetched once"
    stats = report["stats"]
    assert (stats["simdex/dedup/kept"], stats["simdex/dedup/dropped"]) == (4, 4)
    assert stats["simdex/urls/new"] == 9 and stats["dupefilter/filtered"] > 0
    assert "simdex/dedup/errors" not in stats and "simdex/urls/errors" not in stats
    # The kept documents are in the collection under their URLs.
    found = client.query([site.pages[p][0] for p in ORIGINALS], collection, max_distance=0)
    assert [[m.id for m in r.matches] for r in found] == [[site.url + p] for p in ORIGINALS]


def test_crawl_sameJobAgain_schedulesNothing(site, job_settings, tmp_path):
    crawl.run(tmp_path, [site.url + "/"], job_settings)
    fetched = len(site.requests)

    again = crawl.run(tmp_path, [site.url + "/"], job_settings)

    assert len(site.requests) == fetched == 9
    stats = again["stats"]
    assert "scheduler/enqueued" not in stats and "downloader/request_count" not in stats
    assert (stats["dupefilter/filtered"], stats["simdex/urls/seen"]) == (1, 1)
    assert again["kept"] == [] and again["dropped"] == {}


def test_crawl_twoProcessesOfOneJobAtOnce_eachPageFetchedOnce(site, job_settings, tmp_path):
    runs = [crawl.start(tmp_path, [site.url + first], job_settings) for first in ["/news/1", "/news/3"]]
    for process, out in runs:
        output = process.communicate(timeout=120)[0]
        assert process.returncode == 0 and out.exists(), "crawl failed:\n" + output

    assert Counter(site.requests) == Counter(["/"] + ORIGINALS + COPIES), "each page fetched once by one of them"
