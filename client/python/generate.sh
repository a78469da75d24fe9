#!/usr/bin/env sh
# Regenerates the package's gRPC stubs (simdex/v1/*_pb2*.py, committed, so installing the package
# needs no protoc) from proto/src/main/proto with Debian's grpcio-tools
# (apt-get install python3-grpc-tools; its protoc is 3.5, which the plain proto3 of the .proto
# files is kept compatible with). The stubs import each other as `simdex.v1`, which is this
# package, so `PYTHONPATH=client/python` is enough to use it without installing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
proto="$here/../../proto/src/main/proto"
out="${1:-$here}"
mkdir -p "$out/simdex/v1"
/usr/bin/python3 -m grpc_tools.protoc -I "$proto" --python_out="$out" --grpc_python_out="$out" \
  "$proto/simdex/v1/simdex.proto" "$proto/simdex/v1/admin.proto"
echo "stubs in $out/simdex/v1"
