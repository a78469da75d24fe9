#!/bin/bash
# BulkLoad of N documents into a fresh embedded server: V=fin (BurstReads) or V=old (S9rb at Netty's default reads).
cd /work/main
N=${N:-3000000}
for V in ${VS:-fin old fin old}; do
  case $V in fin) export SIMDEX_LOADTEST_JAR=/tmp/lt/S9fin.jar; X="";; old) export SIMDEX_LOADTEST_JAR=/tmp/lt/S9rb.jar; X="-Dsimdex.readBytes=0";; esac
  rm -rf /tmp/s9/bulkdata
  JAVA_OPTS="-Xms4g -Xmx4g -XX:+AlwaysPreTouch -XX:MaxDirectMemorySize=2g $X" loadtest/bin/simdex-loadtest serve --kind embedded --port 17415 --data /tmp/s9/bulkdata --expected $N > /tmp/s9/bulksrv.log 2>&1 &
  P=$!
  sleep 20
  echo "  $V $(loadtest/bin/simdex-loadtest load --target 127.0.0.1:17415 --count $N --batch 5000 --concurrency 2 --via bulkload --no-progress 2>&1 | grep -E 'docsPerSecond|seconds' | tr -d '\n')"
  kill $P; wait $P 2>/dev/null
done
