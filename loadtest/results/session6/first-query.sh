#!/bin/bash
# The first Query after a restart on 10M stored documents: how long it waits for the stores to
# be opened. Old code opens a collection's stores inside its first request; new code opens them
# at start in the background (RetentionSweeper -> prepareGenerations -> the shard's collection).
cd /work/main
D=${D:-/tmp/s6/data10m}
for round in 1 2; do
for jar in ${JARS:-/tmp/lt/S6base.jar /tmp/lt/S6d.jar}; do
  export SIMDEX_LOADTEST_JAR=$jar
  loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 > /tmp/s6/fq.log 2>&1 &
  SP=$!
  sleep ${WAIT:-20}
  echo "round $round $(basename $jar): first Query after ${WAIT:-20} s"
  loadtest/bin/simdex-loadtest run --target 127.0.0.1:17411 --stored 10000000 --concurrency 1 --requests 1 --duration 120s --warmup 0s --runs 1 2>&1 | grep "run 1" | sed 's/.*latency/   latency/'
  loadtest/bin/simdex-loadtest run --target 127.0.0.1:17411 --stored 10000000 --concurrency 1 --requests 100 --duration 120s --warmup 0s --runs 1 2>&1 | grep "run 1" | sed 's/.*latency/   next 100 Queries: latency/'
  kill $SP; wait $SP
done
done
