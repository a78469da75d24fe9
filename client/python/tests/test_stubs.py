"""The committed stubs are what generate.sh makes from the current .proto files."""
import os
import subprocess

import pytest

pytest.importorskip("grpc_tools")

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUBS = ["simdex_pb2.py", "simdex_pb2_grpc.py", "admin_pb2.py", "admin_pb2_grpc.py"]


def test_generateSh_fromCurrentProto_sameAsCommittedStubs(tmp_path):
    subprocess.run([os.path.join(PACKAGE_ROOT, "generate.sh"), str(tmp_path)], check=True, capture_output=True)

    for name in STUBS:
        fresh = (tmp_path / "simdex" / "v1" / name).read_text()
        with open(os.path.join(PACKAGE_ROOT, "simdex", "v1", name)) as f:
            assert f.read() == fresh, "%s is stale: run client/python/generate.sh" % name
