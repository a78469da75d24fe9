"""Tests of the simdex Python package. Those marked by the ``target`` fixture need a running simdex
server: ``SIMDEX_TARGET=127.0.0.1:7411 /usr/bin/python3 -m pytest client/python/tests``."""
import os
import sys
import uuid

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import simdex  # noqa: E402
from fake_server import serve  # noqa: E402


@pytest.fixture(scope="session")
def target():
    value = os.environ.get("SIMDEX_TARGET")
    if not value:
        pytest.fail("SIMDEX_TARGET is not set: start a server (ops/bin/simdex embedded) "
                    "and set SIMDEX_TARGET=host:port")
    return value


@pytest.fixture
def client(target):
    with simdex.Client(target) as c:
        yield c


@pytest.fixture
def collection(client):
    """A new collection with default settings, so reruns against one server do not interfere;
    deleted after the test."""
    name = "py_" + uuid.uuid4().hex[:12]
    client.create_collection(name)
    yield name
    client.delete_collection(name)


@pytest.fixture
def fake():
    """Starts scripted servers (fake_server.FakeSimdex): fake(servicer[, credentials]) -> port."""
    servers = []

    def start(servicer, credentials=None):
        server, port = serve(servicer, credentials)
        servers.append(server)
        return port
    yield start
    for s in servers:
        s.stop(None)
