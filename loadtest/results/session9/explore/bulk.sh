#!/bin/bash
# BulkLoad of N documents into a fresh embedded server, with -Dsimdex.readBytes=RB (0: Netty's default).
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/S9fin.jar}
N=${N:-3000000}
for RB in ${RBS:-1024 0}; do
  rm -rf /tmp/s9/bulkdata
  JAVA_OPTS="-Xms4g -Xmx4g -XX:+AlwaysPreTouch -XX:MaxDirectMemorySize=2g -Dsimdex.readBytes=$RB" loadtest/bin/simdex-loadtest serve --kind embedded --port 17415 --data /tmp/s9/bulkdata --expected $N > /tmp/s9/bulksrv.log 2>&1 &
  P=$!
  sleep 20
  loadtest/bin/simdex-loadtest load --target 127.0.0.1:17415 --count $N --batch 5000 --concurrency 2 --via bulkload --no-progress 2>&1 | grep -E "docsPerSecond|seconds" | tr -d "\n" | sed "s/^/  RB=$RB /"; echo
  kill $P; wait $P 2>/dev/null
done
