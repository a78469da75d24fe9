"""simdex.Client against a running server (SIMDEX_TARGET), each test in a fresh collection."""
import uuid

import grpc
import pytest

import simdex
from site_texts import article, edited

F1 = 0x0123456789ABCDEF


def test_insert_thenQueryAtDistanceOne_findsIt(client, collection):
    assert client.insert([("f1", F1), ("t1", article(1))], collection) == 2

    fp, text = client.query([F1 ^ 1, article(1)], collection)

    assert [(m.id, m.fingerprint, m.distance) for m in fp.matches] == [("f1", F1, 1)]
    assert fp.fingerprint == F1 ^ 1 and fp.total_matches == 1
    assert [(m.id, m.distance) for m in text.matches] == [("t1", 0)]


def test_dedup_nearCopyAndExactCopy_onlyTheFirstInserted(client, collection):
    docs = {"a": article(1), "a-edit": edited(article(1)), "b": article(2), "a-again": article(1)}

    results = client.dedup(docs, collection)

    assert [(r.id, r.inserted) for r in results] == [("a", True), ("a-edit", False), ("b", True), ("a-again", False)]
    assert [m.id for m in results[1].duplicates] == ["a"] and results[1].total_matches == 1
    assert results[1].duplicates[0].distance <= 3
    assert results[0].sequence < results[2].sequence


def test_dedup_moreDocumentsThanOneBatch_decidedInOrderAcrossBatches(target, collection):
    with simdex.Client(target, batch_size=2) as c:
        results = c.dedup([("x%d" % i, F1 ^ (1 << (i // 2 * 8))) for i in range(6)] + [("y", F1 ^ 1)], collection,
                          max_distance=0)

    assert [r.inserted for r in results] == [True, False, True, False, True, False, False]
    assert [m.id for m in results[-1].duplicates] == ["x0"]


def test_delete_knownAndUnknownIds_countsEach(client, collection):
    client.insert([("d1", F1), ("d2", F1 ^ 1)], collection)

    assert client.delete(["d1", "d2", "nope"], collection) == simdex.DeleteResult(deleted=2, not_found=1)
    assert client.stats(collection).documents == 0


def test_bulkLoad_generatorOfManyBatches_loadsEveryDocument(target, collection):
    docs = (("b%d" % i, (i * 0x9E3779B97F4A7C15) % (1 << 64)) for i in range(25_000))
    with simdex.Client(target, batch_size=10_000) as c:
        result = c.bulk_load(docs, collection)

        assert result == simdex.BulkLoadResult(inserted=25_000, batches=3)
        assert c.stats(collection).documents == 25_000
        assert [m.id for m in c.query([(7 * 0x9E3779B97F4A7C15) % (1 << 64)], collection, max_distance=0)[0].matches] \
            == ["b7"]


def test_bulkLoad_badDocumentInTheIterable_raisesItsError(client, collection):
    def docs():
        yield "ok", F1
        yield "bad", 1.5

    with pytest.raises(TypeError, match="document 'bad'"):
        client.bulk_load(docs(), collection)


def test_fingerprint_sameTextTwice_sameFingerprintAsInsertStores(client, collection):
    a, again = client.fingerprint([article(3), article(3)], collection)
    client.insert([("t3", article(3))], collection)

    assert a == again
    assert client.query([a], collection, max_distance=0)[0].matches[0].id == "t3"


def test_checkUrls_repeatsInOneCallAndLater_newOnlyOnce(client):
    job = "py_" + uuid.uuid4().hex[:12]

    assert client.check_urls(job, ["https://a.cn/1", "https://a.cn/1", "https://a.cn/2"]) == [True, False, True]
    assert client.check_urls(job, ["https://a.cn/2", "https://a.cn/3"], check_only=True) == [False, True]
    assert client.check_urls(job, ["https://a.cn/3"]) == [True]
    assert client.drop_url_job(job) is True
    assert client.check_urls(job, ["https://a.cn/1"]) == [True]


def test_checkUrls_canonical_spellingsOfOneAddressAreOneUrl(client):
    job = "py_" + uuid.uuid4().hex[:12]

    assert client.check_urls(job, ["https://a.cn/x/../1", "HTTPS://A.cn:443/1#top"], canonical=True) == [True, False]
    with pytest.raises(simdex.InvalidArgument) as e:
        client.check_urls(job, ["https://a.cn/2", "a.cn/2"], canonical=True)
    assert "urls[1] has no scheme" in str(e.value)
    assert client.check_urls(job, ["https://a.cn/2"], canonical=True) == [True]


def test_lookup_storedIdsWithTheirFingerprints_othersNone(client, collection):
    client.insert([("l1", 0x0123456789abcdef)], collection)

    assert client.lookup(["l1", "missing"], collection) == [0x0123456789abcdef, None]


def test_export_everyDocumentOnce_pageByPage_loadsBackIntoAnotherCollection(client, collection):
    docs = {"e%d" % i: (i * 0x9E3779B97F4A7C15) & ((1 << 64) - 1) for i in range(2500)}
    client.insert(docs.items(), collection)

    exported = list(client.export(collection, page_size=300))

    assert len(exported) == len(docs)
    assert dict(exported) == docs
    copy = collection + "_copy"
    client.create_collection(copy)
    try:
        client.bulk_load(exported, copy)
        assert dict(client.export(copy)) == docs
    finally:
        client.delete_collection(copy)
    with pytest.raises(ValueError):
        list(client.export(collection, page_size=0))


def test_createCollection_twiceWithSameSettings_secondNotCreated(client):
    name = "py_" + uuid.uuid4().hex[:12]

    info, created = client.create_collection(name, max_distance=2, tokenization="CHAR_NGRAMS",
                                             short_text={"enabled": True, "min_jaccard": 0.7})
    again, created_again = client.create_collection(name, max_distance=2, tokenization="CHAR_NGRAMS",
                                                    short_text={"enabled": True, "min_jaccard": 0.7})

    assert (created, created_again) == (True, False)
    assert info.settings.max_distance.value == 2 and info.settings.short_text.min_jaccard == pytest.approx(0.7)
    assert name in [c.name for c in client.collections()]
    with pytest.raises(simdex.AlreadyExists) as e:
        client.create_collection(name, max_distance=1)
    assert e.value.code == grpc.StatusCode.ALREADY_EXISTS


def test_updateCollection_changesWhatIsGiven_keepsTheRest_refusesRetentionOnAForeverCollection(client, collection):
    info, changed = client.update_collection(collection, max_distance=1, sketch_min_jaccard=0.5)
    again, changed_again = client.update_collection(collection, max_distance=1)

    assert (changed, changed_again) == (True, False)
    assert info.settings.max_distance.value == 1 and info.settings.sketch.min_jaccard == pytest.approx(0.5)
    assert info.settings.short_fingerprint.min_jaccard == pytest.approx(0.2)
    assert again == info
    with pytest.raises(simdex.InvalidArgument) as e:
        client.update_collection(collection, retention_seconds=86400)
    assert "forever" in e.value.details and e.value.method == "UpdateCollection"
    with pytest.raises(simdex.NotFound):
        client.update_collection("py_missing_" + uuid.uuid4().hex[:8], max_distance=1)


def test_deleteCollection_existedThenNot_defaultRefused(client):
    name = "py_" + uuid.uuid4().hex[:12]
    client.create_collection(name)
    client.insert([("d1", F1)], name)

    assert client.delete_collection(name) is True
    assert client.delete_collection(name) is False
    assert name not in [c.name for c in client.collections()]
    with pytest.raises(simdex.NotFound):
        client.stats(name)
    with pytest.raises(simdex.InvalidArgument) as e:
        client.delete_collection("default")
    assert "default" in e.value.details


def test_insert_emptyId_invalidArgumentWithTheServersMessage(client, collection):
    with pytest.raises(simdex.InvalidArgument) as e:
        client.insert([("", F1)], collection)

    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "id" in e.value.details and e.value.method == "Insert"
    assert client.stats(collection).documents == 0


def test_query_unknownCollection_notFound(client):
    with pytest.raises(simdex.NotFound) as e:
        client.query([F1], "py_no_such_collection")

    assert e.value.code == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize("content", [1.5, True, -1, 1 << 64, None])
def test_insert_contentNeitherTextNorUnsigned64_rejectedBeforeSending(client, content):
    with pytest.raises((TypeError, ValueError), match="document 'x'"):
        client.insert([("x", content)])


def test_contextManager_afterExit_channelClosed(target):
    with simdex.Client(target) as c:
        c.stats()

    with pytest.raises(ValueError):
        c.stats()
