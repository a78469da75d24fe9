"""simdex: a Python client of the simdex near-duplicate service, and its Scrapy integration.

    import simdex
    with simdex.Client("localhost:7411") as c:
        c.dedup([("u1", "some text"), ("u2", "some text")])  # u1 inserted, u2 a duplicate

``simdex.Client`` is the client; results are plain values (``simdex.results``), failures raise
``simdex.errors.SimdexError`` subclasses; ``simdex.scrapy`` holds the Scrapy dupefilter and item
pipeline; ``simdex.v1`` the generated gRPC stubs.
"""
from simdex.client import MAX_BATCH, Client
from simdex.errors import (Aborted, AlreadyExists, DeadlineExceeded, InvalidArgument, NotFound, ResourceExhausted,
                           SimdexError, Unavailable)
from simdex.results import BulkLoadResult, CollectionInfo, DedupResult, DeleteResult, Match, QueryResult, Stats

__all__ = ["Client", "MAX_BATCH", "SimdexError", "InvalidArgument", "NotFound", "AlreadyExists", "ResourceExhausted",
           "Aborted", "Unavailable", "DeadlineExceeded", "Match", "QueryResult", "DedupResult", "DeleteResult",
           "BulkLoadResult", "Stats", "CollectionInfo"]
__version__ = "0.1.0"
