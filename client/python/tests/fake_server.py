"""An in-process stand-in for the simdex service whose answers a test scripts: for what the real
server cannot be made to do on demand (fail with UNAVAILABLE, stall past a deadline, check a token)."""
import subprocess
import threading
from concurrent import futures

import grpc

from simdex.v1 import simdex_pb2 as pb
from simdex.v1 import simdex_pb2_grpc as rpc


class FakeSimdex(rpc.SimdexServicer):
    """Fails each method's first ``failures[method]`` calls with ``code``, then answers; counts calls
    and keeps each call's metadata."""

    def __init__(self, failures=None, code=grpc.StatusCode.UNAVAILABLE):
        self.failures = dict(failures or {})
        self.code = code
        self.calls = {}
        self.metadata = []
        self.requests = []
        self.lock = threading.Lock()

    def _enter(self, method, context, request=None):
        with self.lock:
            self.requests.append(request)
            self.calls[method] = self.calls.get(method, 0) + 1
            self.metadata.append(dict(context.invocation_metadata()))
            failing = self.calls[method] <= self.failures.get(method, 0)
        if failing:
            context.abort(self.code, "scripted failure %d of %s" % (self.calls[method], method))

    def Insert(self, request, context):
        self._enter("Insert", context)
        return pb.InsertResponse(inserted=len(request.documents))

    def Dedup(self, request, context):
        self._enter("Dedup", context)
        return pb.DedupResponse(results=[pb.DedupResult(id=d.id, inserted=True) for d in request.documents])

    def CheckUrls(self, request, context):
        self._enter("CheckUrls", context, request)
        return pb.CheckUrlsResponse(is_new=[True] * len(request.urls), new_count=len(request.urls))

    def Stats(self, request, context):
        self._enter("Stats", context)
        return pb.StatsResponse(collection=request.collection or "default")


def serve(servicer, credentials=None):
    """Starts ``servicer`` on 127.0.0.1 at a free port; returns (server, port)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    rpc.add_SimdexServicer_to_server(servicer, server)
    port = (server.add_secure_port("127.0.0.1:0", credentials) if credentials
            else server.add_insecure_port("127.0.0.1:0"))
    server.start()
    return server, port


def self_signed_certificate(directory):
    """A key (PEM bytes) and the path of its self-signed certificate for localhost, made by openssl."""
    key, cert = directory / "key.pem", directory / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return key.read_bytes(), cert
