"""simdex's Scrapy integration at its edges: when simdex fails it fails open and says so in the
stats; an unknown collection stops the crawl before it starts; bad settings are refused; TLS and
token settings reach the calls."""
import os
import shutil
import subprocess
import sys
import uuid

import pytest

pytest.importorskip("scrapy")

import crawl  # noqa: E402
import grpc  # noqa: E402
from fake_server import FakeSimdex, self_signed_certificate  # noqa: E402
from local_site import COPIES, ORIGINALS, LocalSite  # noqa: E402
from scrapy import Request  # noqa: E402
from scrapy.settings import Settings  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

import simdex  # noqa: E402
from simdex.scrapy import SimdexDupeFilter, client_from_settings  # noqa: E402

SIMDEX = crawl.SIMDEX_SETTINGS


FINGERPRINTER = get_crawler(settings_dict={"REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7"}).request_fingerprinter


class Stats(dict):
    def inc_value(self, key):
        self[key] = self.get(key, 0) + 1


def dupefilter(port, ttl=0):
    return SimdexDupeFilter(simdex.Client("127.0.0.1:%d" % port), "job_1", ttl, FINGERPRINTER, Stats())


def test_dupeFilter_checkUrlsUnavailable_requestScheduledAndErrorCounted(fake):
    servicer = FakeSimdex(failures={"CheckUrls": 1})
    f = dupefilter(fake(servicer))

    assert f.request_seen(Request("http://a.cn/1")) is False
    assert f.stats == {"simdex/urls/errors": 1}
    assert f.request_seen(Request("http://a.cn/1")) is False  # not remembered: asked again
    assert f.request_seen(Request("http://a.cn/1")) is True  # now remembered
    assert servicer.calls["CheckUrls"] == 2 and f.stats["simdex/urls/new"] == 1


def test_dupeFilter_ttlSetting_sentWithEveryCheck(fake):
    servicer = FakeSimdex()
    f = dupefilter(fake(servicer), ttl=3600)

    f.request_seen(Request("http://a.cn/1"))
    f.request_seen(Request("http://a.cn/2", method="POST"))

    assert [(r.job, r.ttl_seconds, len(r.urls[0])) for r in servicer.requests] == [("job_1", 3600, 40)] * 2


@pytest.mark.parametrize("job", ["", "a.b", "x" * 65])
def test_dupeFilter_badJobName_valueErrorNamingTheSetting(job):
    with pytest.raises(ValueError, match="SIMDEX_JOB"):
        SimdexDupeFilter(None, job, 0, FINGERPRINTER)


def test_crawl_dedupAlwaysUnavailable_everyItemKeptAndCounted(fake, tmp_path):
    port = fake(FakeSimdex(failures={"Dedup": 10 ** 6}))
    settings = dict(SIMDEX, SIMDEX_TARGET="127.0.0.1:%d" % port, SIMDEX_JOB="job_1")

    with LocalSite() as site:
        report = crawl.run(tmp_path, [site.url + "/"], settings)

    assert sorted(report["kept"]) == sorted(site.url + p for p in ORIGINALS + COPIES)
    assert report["stats"]["simdex/dedup/errors"] == 8 and "simdex/dedup/kept" not in report["stats"]


def test_crawl_unknownCollection_nothingFetched(target, tmp_path):
    settings = dict(SIMDEX, SIMDEX_TARGET=target, SIMDEX_COLLECTION="py_missing_" + uuid.uuid4().hex[:8],
                    SIMDEX_JOB="py_" + uuid.uuid4().hex[:12])

    with LocalSite() as site:
        report = crawl.run(tmp_path, [site.url + "/"], settings)

        assert site.requests == []
    assert "downloader/request_count" not in report["stats"]


def test_import_simdexScrapy_installsNoReactor():
    """A spider module may import it before Scrapy installs the TWISTED_REACTOR it is set to."""
    code = "import sys, simdex.scrapy; sys.exit('twisted.internet.reactor' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=crawl.PACKAGE_ROOT)
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 0


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_clientFromSettings_tlsCaAndToken_usedForCalls(fake, tmp_path):
    key, cert = self_signed_certificate(tmp_path)
    servicer = FakeSimdex()
    port = fake(servicer, grpc.ssl_server_credentials([(key, cert.read_bytes())]))
    settings = Settings({"SIMDEX_TARGET": "localhost:%d" % port, "SIMDEX_TLS_CA": str(cert), "SIMDEX_TOKEN": "t"})

    with client_from_settings(settings) as c:
        c.stats()

    assert servicer.metadata[0]["authorization"] == "Bearer t"
