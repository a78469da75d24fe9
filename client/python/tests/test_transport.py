"""simdex.Client's retries, deadlines, token, TLS and streaming, against a scripted in-process server."""
import shutil
import threading

import grpc
import pytest

import simdex
from fake_server import FakeSimdex, self_signed_certificate
from simdex.v1 import simdex_pb2 as pb


def test_insert_unavailableTwice_retriedAndSucceeds(fake):
    servicer = FakeSimdex(failures={"Insert": 2})
    with simdex.Client("127.0.0.1:%d" % fake(servicer)) as c:
        assert c.insert([("a", 1)]) == 1
    assert servicer.calls["Insert"] == 3


def test_insert_batchOfOneMegabyteUnavailableOnce_retried(fake):
    servicer = FakeSimdex(failures={"Insert": 1})
    with simdex.Client("127.0.0.1:%d" % fake(servicer)) as c:
        assert c.insert([("a%d" % i, "x" * 1024) for i in range(1000)]) == 1000
    assert servicer.calls["Insert"] == 2


def test_insert_unavailableOnEveryAttempt_raisesUnavailableAfterAttempts(fake):
    servicer = FakeSimdex(failures={"Insert": 99})
    with simdex.Client("127.0.0.1:%d" % fake(servicer), attempts=2) as c:
        with pytest.raises(simdex.Unavailable) as e:
            c.insert([("a", 1)])
    assert e.value.code == grpc.StatusCode.UNAVAILABLE and "scripted failure 2" in e.value.details
    assert servicer.calls["Insert"] == 2


def test_insert_oneAttempt_unavailableNotRetried(fake):
    servicer = FakeSimdex(failures={"Insert": 1})
    with simdex.Client("127.0.0.1:%d" % fake(servicer), attempts=1) as c:
        with pytest.raises(simdex.Unavailable):
            c.insert([("a", 1)])
    assert servicer.calls["Insert"] == 1


@pytest.mark.parametrize("attempts", [0, 6])
def test_client_attemptsOutOfRange_valueError(attempts):
    with pytest.raises(ValueError, match="attempts must be 1..5"):
        simdex.Client("localhost:1", attempts=attempts)


def test_dedup_aborted_retried(fake):
    servicer = FakeSimdex(failures={"Dedup": 1}, code=grpc.StatusCode.ABORTED)
    with simdex.Client("127.0.0.1:%d" % fake(servicer)) as c:
        assert [r.inserted for r in c.dedup([("a", 1)])] == [True]
    assert servicer.calls["Dedup"] == 2


def test_checkUrls_unavailable_notRetried(fake):
    servicer = FakeSimdex(failures={"CheckUrls": 1})
    with simdex.Client("127.0.0.1:%d" % fake(servicer)) as c:
        with pytest.raises(simdex.Unavailable):
            c.check_urls("job", ["https://a.cn/1"])
    assert servicer.calls["CheckUrls"] == 1


def test_insert_invalidArgument_notRetried(fake):
    servicer = FakeSimdex(failures={"Insert": 1}, code=grpc.StatusCode.INVALID_ARGUMENT)
    with simdex.Client("127.0.0.1:%d" % fake(servicer)) as c:
        with pytest.raises(simdex.InvalidArgument):
            c.insert([("a", 1)])
    assert servicer.calls["Insert"] == 1


def test_token_sentAsBearerMetadataWithEveryCall(fake):
    servicer = FakeSimdex()
    with simdex.Client("127.0.0.1:%d" % fake(servicer), token="s3cret") as c:
        c.insert([("a", 1)])
        c.stats()
    assert [m.get("authorization") for m in servicer.metadata] == ["Bearer s3cret", "Bearer s3cret"]


class Stalling(FakeSimdex):
    """Answers Stats only after the caller has gone (its deadline passed)."""

    def Stats(self, request, context):
        gone = threading.Event()
        context.add_callback(gone.set)
        assert gone.wait(30), "the client's deadline did not end the call"
        return pb.StatsResponse()


def test_stats_serverSlowerThanTimeout_deadlineExceeded(fake):
    with simdex.Client("127.0.0.1:%d" % fake(Stalling()), timeout=0.2) as c:
        with pytest.raises(simdex.DeadlineExceeded) as e:
            c.stats()
    assert e.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


class Reading(FakeSimdex):
    """BulkLoad that reads ``take`` messages, notes how many the client had produced by then,
    and ends the stream with INVALID_ARGUMENT."""

    def __init__(self, take, produced):
        super().__init__()
        self.take, self.produced, self.produced_when_done = take, produced, None

    def BulkLoad(self, request_iterator, context):
        for _ in range(self.take):
            next(request_iterator)
        self.produced_when_done = self.produced[0]
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "stop after %d batches" % self.take)


def test_bulkLoad_serverStopsReading_iterableNotDrainedAhead(fake):
    produced = [0]
    total = 20_000

    def docs():  # 20,000 batches of one 2 KB document: 40 MB if read eagerly
        for i in range(total):
            produced[0] += 1
            yield "d%d" % i, "x" * 2048
    servicer = Reading(take=3, produced=produced)
    with simdex.Client("127.0.0.1:%d" % fake(servicer), batch_size=1) as c:
        with pytest.raises(simdex.InvalidArgument, match="stop after 3 batches"):
            c.bulk_load(docs())
    # Ahead of the server by what the HTTP/2 flow-control windows let through (5 batches, 10 KB,
    # when written), far below the whole input; the bound allows 100 batches.
    assert servicer.produced_when_done < 100, servicer.produced_when_done
    assert produced[0] < total


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_tls_rootCertificatePath_connectsOverTls(fake, tmp_path):
    key, cert = self_signed_certificate(tmp_path)
    port = fake(FakeSimdex(), grpc.ssl_server_credentials([(key, cert.read_bytes())]))

    with simdex.Client("localhost:%d" % port, tls=str(cert), token="t") as c:
        assert c.stats().collection == "default"
    with simdex.Client("localhost:%d" % port, timeout=2) as plaintext:
        with pytest.raises(simdex.SimdexError):
            plaintext.stats()


def test_client_badTls_typeErrorNamingTheChoices():
    with pytest.raises(TypeError, match="root certificate path"):
        simdex.Client("localhost:1", tls=42)
