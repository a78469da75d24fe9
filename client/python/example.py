#!/usr/bin/env python3
"""simdex from Python: dedup texts in a collection, query a fingerprint, check URLs.

    /usr/bin/python3 client/python/example.py [host:port]

(run from anywhere: Python puts this file's directory, which holds the `simdex` package, on the path).
Against a server with TLS or tokens, set SIMDEX_TLS_CA (the CA certificate's PEM file) and
SIMDEX_TOKEN, the variables the CLI and the Scrapy settings read.
"""
import os
import sys

import simdex

COUNCIL = ("The city council voted on {} to restore the wetlands along the northern bank of the river, ending a "
           "decade of debate over how to protect the neighbourhoods that flood every spring.")


def main(target):
    tls = os.environ.get("SIMDEX_TLS_CA") or None
    with simdex.Client(target, token=os.environ.get("SIMDEX_TOKEN") or None, tls=tls) as c:
        # Short posts: one changed word moves a SimHash 5-8 bits, so short texts are verified by Jaccard.
        c.create_collection("py_news", max_distance=3, short_text={"enabled": True, "min_jaccard": 0.6})
        texts = [("a1", COUNCIL.format("Tuesday")), ("a2", COUNCIL.format("Wednesday")),
                 ("b1", "Stocks rallied on Friday as the central bank held interest rates and signalled patience.")]
        decided = c.dedup(texts, "py_news")
        for d in decided:
            print("%s %016x %s" % (d.id, d.fingerprint, "kept" if d.inserted else "duplicate of " + ", ".join(
                "%s (%d bits, jaccard %.2f)" % (m.id, m.distance, m.similarity) for m in d.duplicates)))
        print("query:", [(m.id, m.distance) for m in c.query([decided[0].fingerprint], "py_news")[0].matches])
        is_new = c.check_urls("py_job", ["https://a.cn/1", "https://a.cn/1", "https://a.cn/2"])
        print("new urls:", is_new)
        return 0 if [d.inserted for d in decided] == [True, False, True] and is_new == [True, False, True] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "localhost:7411"))
