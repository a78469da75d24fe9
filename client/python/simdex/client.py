"""A typed, blocking client of the ``simdex.v1.Simdex`` service."""
import json
import os
from itertools import islice
from typing import Iterable, Iterator, List, Mapping, Optional, Tuple, Union

import grpc
from google.protobuf import wrappers_pb2

from simdex.errors import from_rpc_error
from simdex.results import BulkLoadResult, CollectionInfo, DedupResult, DeleteResult, QueryResult, Stats
from simdex.v1 import simdex_pb2 as pb
from simdex.v1 import simdex_pb2_grpc as rpc

#: A document: (id, text) or (id, fingerprint as an unsigned 64-bit int).
Doc = Tuple[str, Union[str, int]]
#: What to look for: a text or a fingerprint.
ProbeContent = Union[str, int]

MAX_BATCH = 10_000
_FINGERPRINT_LIMIT = 1 << 64
_SERVICE = "simdex.v1.Simdex"
# simdex.proto: Insert, Delete, Query and CreateCollection are idempotent and Dedup is safe to
# retry; reads are too. CheckUrls is not (a retry after a lost answer reports a URL the first
# attempt recorded as seen), nor BulkLoad (a stream cannot be replayed from an iterable).
_RETRIED = ["Insert", "Delete", "Query", "Lookup", "Export", "CreateCollection", "ListCollections", "Fingerprint", "Stats"]
_RETRY = {"initialBackoff": "0.1s", "maxBackoff": "2s", "backoffMultiplier": 2}
# gRPC retries only calls whose request fits its retry buffer (256 KB unless set); the server
# takes messages up to 16 MiB, so any request it could accept can be retried.
_MAX_MESSAGE = 16 << 20


def _service_config(attempts):
    """gRPC's retry policy for ``attempts`` tries (a policy needs at least 2; 1 means none)."""
    def policy(codes):
        return dict(_RETRY, maxAttempts=attempts, retryableStatusCodes=codes)
    return json.dumps({"methodConfig": [] if attempts == 1 else [
        {"name": [{"service": _SERVICE, "method": m} for m in _RETRIED], "retryPolicy": policy(["UNAVAILABLE"])},
        {"name": [{"service": _SERVICE, "method": "Dedup"}], "retryPolicy": policy(["UNAVAILABLE", "ABORTED"])},
    ]})


def _batches(items, size):
    it = iter(items)
    while True:
        batch = list(islice(it, size))
        if not batch:
            return
        yield batch


def _credentials(tls):
    if tls is None or tls is False:
        return None
    if isinstance(tls, grpc.ChannelCredentials):
        return tls
    if tls is True:
        return grpc.ssl_channel_credentials()
    if isinstance(tls, bytes):
        return grpc.ssl_channel_credentials(root_certificates=tls)
    if isinstance(tls, (str, os.PathLike)):
        with open(tls, "rb") as f:
            return grpc.ssl_channel_credentials(root_certificates=f.read())
    raise TypeError("tls must be None, True, a root certificate path or PEM bytes, or grpc.ChannelCredentials; got %r"
                    % (tls,))


def _content(content, what):
    """{"text": content} or {"fingerprint": content}, checked."""
    if isinstance(content, str):
        return {"text": content}
    if isinstance(content, bool) or not isinstance(content, int):
        raise TypeError("%s: content must be a text (str) or a fingerprint (int), got %r" % (what, content))
    if not 0 <= content < _FINGERPRINT_LIMIT:
        raise ValueError("%s: fingerprint %d is not an unsigned 64-bit value" % (what, content))
    return {"fingerprint": content}


def _document(doc):
    doc_id, content = doc
    return pb.Document(id=doc_id, **_content(content, "document %r" % (doc_id,)))


def _probe(content):
    return pb.Probe(**_content(content, "probe"))


def _distance(max_distance):
    return None if max_distance is None else wrappers_pb2.UInt32Value(value=max_distance)


class Client:
    """A connection to a simdex server (the embedded default or a cluster's router).

    ``Client("localhost:7411")`` talks plaintext. ``tls`` makes it TLS: ``True`` (the system's
    roots), a root-certificate PEM path or bytes, or ``grpc.ChannelCredentials``. ``token`` is
    sent with every call as ``authorization: Bearer <token>`` metadata, what a server started with
    ``--auth-file`` requires. For a server that requires client certificates (``--tls-client-ca``)
    pass ``grpc.ssl_channel_credentials(root_certificates, private_key, certificate_chain)``.

    Every call has a deadline: ``timeout`` seconds (default 10) unless the call is given its
    own; batched calls apply it to each RPC. ``bulk_load`` has none unless given one. Calls that
    are safe to repeat are retried on UNAVAILABLE (and Dedup also on ABORTED) by gRPC's retry
    policy, up to ``attempts`` tries with exponential backoff from 0.1 s to 2 s; CheckUrls and
    BulkLoad are not retried. Methods taking many documents, probes, texts, ids or URLs accept
    any iterable and send it ``batch_size`` at a time (1..10,000), in order. Failures raise
    ``simdex.errors.SimdexError`` subclasses carrying the gRPC status code and message.
    """

    def __init__(self, target: str, token: Optional[str] = None, tls=None, timeout: float = 10.0,
                 attempts: int = 4, batch_size: int = 1000):
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError("batch_size must be 1..%d, got %r" % (MAX_BATCH, batch_size))
        if not 1 <= attempts <= 5:
            raise ValueError("attempts must be 1..5 (gRPC caps retries at 5), got %r" % (attempts,))
        options = [("grpc.enable_retries", 1), ("grpc.service_config", _service_config(attempts)),
                   ("grpc.per_rpc_retry_buffer_size", _MAX_MESSAGE),
                   ("grpc.max_receive_message_length", 64 << 20)]
        credentials = _credentials(tls)
        self._channel = (grpc.insecure_channel(target, options) if credentials is None
                         else grpc.secure_channel(target, credentials, options))
        self._stub = rpc.SimdexStub(self._channel)
        self._metadata = (("authorization", "Bearer " + token),) if token else None
        self._timeout = timeout
        self.batch_size = batch_size

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._channel.close()

    def _call(self, method, request, timeout=None):
        try:
            return getattr(self._stub, method)(request, timeout=timeout or self._timeout, metadata=self._metadata)
        except grpc.RpcError as e:
            raise from_rpc_error(e, method) from None

    def _each_batch(self, items, convert, call):
        return [call([convert(x) for x in batch]) for batch in _batches(items, self.batch_size)]

    @staticmethod
    def _docs(documents):
        return documents.items() if isinstance(documents, Mapping) else documents

    def insert(self, documents: Iterable[Doc], collection: str = "", timeout: Optional[float] = None) -> int:
        """Stores documents (an id given again moves to the new fingerprint); returns how many."""
        return sum(self._each_batch(self._docs(documents), _document, lambda b: self._call(
            "Insert", pb.InsertRequest(collection=collection, documents=b), timeout).inserted))

    def query(self, probes: Iterable[ProbeContent], collection: str = "", max_distance: Optional[int] = None,
              limit: int = 0, timeout: Optional[float] = None) -> List[QueryResult]:
        """For each probe (text or fingerprint), the stored documents within max_distance, nearest
        first (at most ``limit``; 0: 100). max_distance None: the collection's."""
        batches = self._each_batch(probes, _probe, lambda b: self._call("Query", pb.QueryRequest(
            collection=collection, probes=b, max_distance=_distance(max_distance), limit=limit), timeout).results)
        return [QueryResult.of(r) for results in batches for r in results]

    def dedup(self, documents: Iterable[Doc], collection: str = "", max_distance: Optional[int] = None,
              limit: int = 0, timeout: Optional[float] = None) -> List[DedupResult]:
        """Check-and-insert in order: each document is stored unless something within max_distance
        is stored already (including earlier documents of this call)."""
        batches = self._each_batch(self._docs(documents), _document, lambda b: self._call("Dedup", pb.DedupRequest(
            collection=collection, documents=b, max_distance=_distance(max_distance), limit=limit), timeout).results)
        return [DedupResult.of(r) for results in batches for r in results]

    def delete(self, ids: Iterable[str], collection: str = "", timeout: Optional[float] = None) -> DeleteResult:
        """Removes documents by id; unknown ids count as not found."""
        answers = self._each_batch(ids, str, lambda b: self._call(
            "Delete", pb.DeleteRequest(collection=collection, ids=b), timeout))
        return DeleteResult(sum(a.deleted for a in answers), sum(a.not_found for a in answers))

    def bulk_load(self, documents: Iterable[Doc], collection: str = "",
                  timeout: Optional[float] = None) -> BulkLoadResult:
        """Streams documents to BulkLoad, ``batch_size`` per message. The iterable is read lazily:
        gRPC takes the next message only when the previous one is sent, so a slow server holds
        the reader back (HTTP/2 flow control) instead of the client buffering the input."""
        failure = []

        def requests():
            try:
                for batch in _batches(self._docs(documents), self.batch_size):
                    yield pb.BulkLoadRequest(collection=collection, documents=[_document(d) for d in batch])
            except Exception as e:  # gRPC would report only CANCELLED: keep the cause
                failure.append(e)
                raise
        try:
            r = self._stub.BulkLoad(requests(), timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as e:
            if failure:
                raise failure[0] from None
            raise from_rpc_error(e, "BulkLoad") from None
        return BulkLoadResult(r.inserted, r.batches)

    def fingerprint(self, texts: Iterable[str], collection: str = "", timeout: Optional[float] = None) -> List[int]:
        """The fingerprints Insert would compute for these texts in this collection; stores nothing."""
        batches = self._each_batch(texts, str, lambda b: self._call(
            "Fingerprint", pb.FingerprintRequest(collection=collection, texts=b), timeout).fingerprints)
        return [f for fingerprints in batches for f in fingerprints]

    def check_urls(self, job: str, urls: Iterable[str], ttl_seconds: int = 0, check_only: bool = False,
                   timeout: Optional[float] = None, canonical: bool = False) -> List[bool]:
        """Parallel to ``urls``: True for a URL the job's seen-set did not hold (or held expired).
        Records them for ``ttl_seconds`` (0: 7 days) unless check_only. With ``canonical`` the
        server compares the URLs' canonical forms (lower-case scheme and host, no default port,
        fragment or empty query, dot segments resolved, escapes normalised) and refuses a URL that
        is not absolute (InvalidArgument, nothing recorded). Not retried: on UNAVAILABLE the URLs'
        state is unknown."""
        batches = self._each_batch(urls, str, lambda b: self._call("CheckUrls", pb.CheckUrlsRequest(
            job=job, urls=b, ttl_seconds=ttl_seconds, check_only=check_only, canonical=canonical), timeout).is_new)
        return [n for is_new in batches for n in is_new]

    def lookup(self, ids: Iterable[str], collection: str = "", timeout: Optional[float] = None) -> List[Optional[int]]:
        """Parallel to ``ids``: the fingerprint each id is stored with, or None where it is not
        stored (within the collection's retention window)."""
        batches = self._each_batch(ids, str, lambda b: self._call("Lookup", pb.LookupRequest(
            collection=collection, ids=b), timeout).results)
        return [r.fingerprint if r.found else None for results in batches for r in results]

    def export(self, collection: str = "", page_size: int = 1000,
               timeout: Optional[float] = None) -> Iterator[Tuple[str, int]]:
        """Every stored document as ``(id, fingerprint)``, fetched ``page_size`` (1..10,000) at a
        time as the iterator is read: the form ``insert`` and ``bulk_load`` take. A document not
        changed while it is read comes exactly once; texts are not exported. A failed page raises
        (ABORTED: partitions moved, or the node read from left; export again from the start)."""
        if not 1 <= page_size <= MAX_BATCH:
            raise ValueError("page_size must be 1..%d, got %r" % (MAX_BATCH, page_size))
        cursor = ""
        while True:
            page = self._call("Export", pb.ExportRequest(collection=collection, cursor=cursor, page_size=page_size), timeout)
            for d in page.documents:
                yield d.id, d.fingerprint
            cursor = page.next_cursor
            if not cursor:
                return

    def drop_url_job(self, job: str, timeout: Optional[float] = None) -> bool:
        """Forgets a job's URL seen-set; True if it existed."""
        return self._call("DropUrlJob", pb.DropUrlJobRequest(job=job), timeout).existed

    def create_collection(self, name: str, settings=None, timeout: Optional[float] = None,
                          **fields) -> Tuple[CollectionInfo, bool]:
        """Creates a collection; returns it and whether it was created (False: it existed with these
        settings). Settings as a ``CollectionSettings`` message or its fields as keywords, e.g.
        ``max_distance=3, tokenization="CHAR_NGRAMS", retention_seconds=86400,
        short_text={"enabled": True, "min_jaccard": 0.6}``."""
        if "max_distance" in fields:
            fields["max_distance"] = _distance(fields["max_distance"])
        r = self._call("CreateCollection", pb.CreateCollectionRequest(
            name=name, settings=settings if settings is not None else pb.CollectionSettings(**fields)), timeout)
        return CollectionInfo.of(r.collection), r.created

    def update_collection(self, name: str, max_distance: Optional[int] = None,
                          retention_seconds: Optional[int] = None, sketch_min_jaccard: Optional[float] = None,
                          short_text_min_jaccard: Optional[float] = None,
                          short_fingerprint_min_jaccard: Optional[float] = None,
                          timeout: Optional[float] = None) -> Tuple[CollectionInfo, bool]:
        """Changes the settings given (those left None keep their value): the default distance, the
        retention window (only of a collection created with one), the verification thresholds.
        Returns the collection as it now is and whether anything changed. Raises InvalidArgument for
        a bad value or a change that would hide stored documents, NotFound for an unknown collection."""
        req = pb.UpdateCollectionRequest(name=name, max_distance=_distance(max_distance))
        if retention_seconds is not None:
            req.retention_seconds.value = retention_seconds
        for field, value in (("sketch_min_jaccard", sketch_min_jaccard), ("short_text_min_jaccard", short_text_min_jaccard),
                             ("short_fingerprint_min_jaccard", short_fingerprint_min_jaccard)):
            if value is not None:
                getattr(req, field).value = value
        r = self._call("UpdateCollection", req, timeout)
        return CollectionInfo.of(r.collection), r.changed

    def delete_collection(self, name: str, timeout: Optional[float] = None) -> bool:
        """Deletes a collection and drops its documents on every shard; True if it existed. Safe to
        retry. Raises InvalidArgument for "default", which always exists."""
        return self._call("DeleteCollection", pb.DeleteCollectionRequest(name=name), timeout).existed

    def collections(self, timeout: Optional[float] = None) -> List[CollectionInfo]:
        """Every collection."""
        return [CollectionInfo.of(c) for c in
                self._call("ListCollections", pb.ListCollectionsRequest(), timeout).collections]

    def stats(self, collection: str = "", timeout: Optional[float] = None) -> Stats:
        """Counts and sizes of a collection."""
        return Stats.of(self._call("Stats", pb.StatsRequest(collection=collection), timeout))
