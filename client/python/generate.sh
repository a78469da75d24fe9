#!/usr/bin/env sh
# Generates Python stubs for simdex.v1 into ./gen with Debian's grpcio-tools
# (apt-get install python3-grpcio python3-grpc-tools; its protoc is 3.5, which the plain proto3
# of simdex.proto is kept compatible with).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
proto="$here/../../proto/src/main/proto"
mkdir -p "$here/gen"
/usr/bin/python3 -m grpc_tools.protoc -I "$proto" --python_out="$here/gen" --grpc_python_out="$here/gen" \
  "$proto/simdex/v1/simdex.proto" "$proto/simdex/v1/admin.proto"
touch "$here/gen/simdex/__init__.py" "$here/gen/simdex/v1/__init__.py"
echo "stubs in $here/gen"
