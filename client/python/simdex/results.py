"""What simdex calls return, as plain immutable values (fingerprints are unsigned 64-bit ints)."""
from dataclasses import dataclass
from typing import List


@dataclass(frozen=True)
class Match:
    """A stored document near a probe or a deduplicated document."""
    id: str
    fingerprint: int
    #: Hamming distance to the probe's fingerprint, 0..64.
    distance: int
    #: Short-text verification's character-shingle Jaccard, 0..1; -1 when found by distance alone.
    similarity: float

    @classmethod
    def of(cls, m):
        return cls(m.id, m.fingerprint, m.distance, m.similarity)


@dataclass(frozen=True)
class QueryResult:
    """One probe's answer: its fingerprint, the nearest matches, and how many match in all."""
    fingerprint: int
    matches: List[Match]
    total_matches: int

    @classmethod
    def of(cls, r):
        return cls(r.fingerprint, [Match.of(m) for m in r.matches], r.total_matches)


@dataclass(frozen=True)
class DedupResult:
    """One document's decision: stored (``inserted``) or a duplicate of ``duplicates``."""
    id: str
    fingerprint: int
    inserted: bool
    duplicates: List[Match]
    total_matches: int
    #: Its normalised text was stored before: the fingerprint came from the content index.
    known_text: bool
    #: The decision's place in the collection's serial order of Dedup decisions.
    sequence: int

    @classmethod
    def of(cls, r):
        return cls(r.id, r.fingerprint, r.inserted, [Match.of(m) for m in r.duplicates], r.total_matches,
                   r.known_text, r.sequence)


@dataclass(frozen=True)
class DeleteResult:
    deleted: int
    not_found: int


@dataclass(frozen=True)
class BulkLoadResult:
    inserted: int
    batches: int


@dataclass(frozen=True)
class Stats:
    """Counts and sizes of a collection (see StatsResponse in simdex.proto for units)."""
    collection: str
    documents: int
    fingerprints: int
    shards: int
    table_bytes: int
    doc_bytes: int
    bucket_entries: int

    @classmethod
    def of(cls, r):
        return cls(r.collection, r.documents, r.fingerprints, r.shards, r.table_bytes, r.doc_bytes,
                   r.bucket_entries)


@dataclass(frozen=True)
class CollectionInfo:
    """A collection: its name, creation time (ms since the epoch) and settings with defaults filled
    in, as the ``simdex.v1.simdex_pb2.CollectionSettings`` message."""
    name: str
    created_unix_ms: int
    settings: object

    @classmethod
    def of(cls, c):
        return cls(c.name, c.created_unix_ms, c.settings)
