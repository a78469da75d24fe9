"""Generated gRPC stubs of the simdex.v1 API (by generate.sh from proto/src/main/proto; do not edit)."""
