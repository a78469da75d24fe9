#!/usr/bin/env python3
"""simdex from Python: create a collection, dedup texts, query a fingerprint, check URLs.

    client/python/generate.sh
    /usr/bin/python3 client/python/example.py [host:port]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen"))

import grpc  # noqa: E402
from google.protobuf import wrappers_pb2  # noqa: E402
from simdex.v1 import simdex_pb2 as pb  # noqa: E402
from simdex.v1 import simdex_pb2_grpc as rpc  # noqa: E402


def main(target):
    with grpc.insecure_channel(target) as channel:
        stub = rpc.SimdexStub(channel)
        # Short posts: one changed word moves a SimHash 5-8 bits, so verify short texts by Jaccard.
        stub.CreateCollection(pb.CreateCollectionRequest(name="py_news", settings=pb.CollectionSettings(
            max_distance=wrappers_pb2.UInt32Value(value=3),
            short_text=pb.ShortTextSettings(enabled=True, min_jaccard=0.6))), timeout=10)
        texts = [
            ("a1", "The city council voted on Tuesday to restore the wetlands along the northern bank of the river, "
                   "ending a decade of debate over how to protect the neighbourhoods that flood every spring."),
            ("a2", "The city council voted on Wednesday to restore the wetlands along the northern bank of the river, "
                   "ending a decade of debate over how to protect the neighbourhoods that flood every spring."),
            ("b1", "Stocks rallied on Friday as the central bank held interest rates and signalled patience."),
        ]
        r = stub.Dedup(pb.DedupRequest(collection="py_news",
                                       documents=[pb.Document(id=i, text=t) for i, t in texts]), timeout=10)
        for d in r.results:
            verdict = "kept" if d.inserted else "duplicate of " + ", ".join(
                "%s (%d bits, jaccard %.2f)" % (m.id, m.distance, m.similarity) for m in d.duplicates)
            print("%s %016x %s" % (d.id, d.fingerprint, verdict))
        q = stub.Query(pb.QueryRequest(collection="py_news", probes=[pb.Probe(fingerprint=r.results[0].fingerprint)]),
                       timeout=10)
        print("query:", [(m.id, m.distance) for m in q.results[0].matches])
        u = stub.CheckUrls(pb.CheckUrlsRequest(job="py_job", urls=["https://a.cn/1", "https://a.cn/1", "https://a.cn/2"]),
                           timeout=10)
        print("new urls:", list(u.is_new))
        return 0 if (r.results[0].inserted and not r.results[1].inserted and r.results[2].inserted
                     and list(u.is_new) == [True, False, True]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "localhost:7411"))
