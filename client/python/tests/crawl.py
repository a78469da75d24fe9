"""Runs one real Scrapy crawl in its own process (Twisted's reactor runs once per process), and
writes what happened as JSON:

    python3 crawl.py OUT.json START_URL [START_URL ...] -s NAME=VALUE ...

OUT.json: {"kept": [item urls], "dropped": {url: reason}, "stats": {...}}. ``start`` launches it.
"""
import json
import os
import subprocess
import sys
import uuid

import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    name = "site"

    def start_requests(self):
        for url in self.start:
            yield scrapy.Request(url)  # not dont_filter: the job's seen-set decides, start pages too

    def parse(self, response):
        text = " ".join(response.css("article ::text").getall()).strip()
        if text:
            yield {"url": response.url, "text": text}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)


def main(out, starts, settings):
    process = CrawlerProcess(dict({
        # As in the settings.py that `scrapy startproject` writes.
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "INFO",
    }, **settings))
    crawler = process.create_crawler(SiteSpider)
    kept, dropped = [], {}
    crawler.signals.connect(lambda item, **_: kept.append(item["url"]), signal=signals.item_scraped, weak=False)
    crawler.signals.connect(lambda item, exception, **_: dropped.__setitem__(item["url"], str(exception)),
                            signal=signals.item_dropped, weak=False)
    process.crawl(crawler, start=starts)
    process.start()
    stats = {k: v for k, v in crawler.stats.get_stats().items() if isinstance(v, (int, float, str))}
    with open(out, "w") as f:
        json.dump({"kept": kept, "dropped": dropped, "stats": stats}, f, indent=1)


#: simdex's dupefilter and pipeline, as the README configures them.
SIMDEX_SETTINGS = {"DUPEFILTER_CLASS": "simdex.scrapy.SimdexDupeFilter",
                   "ITEM_PIPELINES": {"simdex.scrapy.SimdexDedupPipeline": 300}}
HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)


def start(out_dir, starts, settings):
    """Starts this script on ``starts`` with ``settings`` (dicts as JSON) and the package of this
    checkout; returns the process and the path of its report."""
    out = out_dir / ("crawl-%s.json" % uuid.uuid4().hex[:8])
    args = [sys.executable, os.path.abspath(__file__), str(out)] + starts
    for name, value in settings.items():
        args += ["-s", "%s=%s" % (name, json.dumps(value) if isinstance(value, dict) else value)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PACKAGE_ROOT, HERE]))
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True), out


def run(out_dir, starts, settings):
    """Runs a crawl to its end; returns its report."""
    process, out = start(out_dir, starts, settings)
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 0 and out.exists(), "crawl failed:\n" + output
    return json.loads(out.read_text())


if __name__ == "__main__":
    args = sys.argv[1:]
    settings = dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "-s")
    positional = [a for i, a in enumerate(args) if a != "-s" and (i == 0 or args[i - 1] != "-s")]
    main(positional[0], positional[1:], settings)
