#!/bin/bash
# The first write into a fresh 50M-sized store: how long it waits for the store's files.
# A fresh server on an empty data directory; after WAIT seconds, one Insert of 1,000 documents.
# Old code creates the store inside that first write; new code creates it in the background at
# start (RetentionSweeper -> SimdexService.prepareGenerations).
cd /work/main
OUT=loadtest/results/session6
for round in 1 2; do
for jar in ${JARS:-/tmp/lt/S6base.jar /tmp/lt/S6d.jar}; do
  export SIMDEX_LOADTEST_JAR=$jar
  D=/tmp/s6/fw; rm -rf $D
  sync; echo 3 > /proc/sys/vm/drop_caches
  loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 50000000 > /tmp/s6/fw.log 2>&1 &
  SP=$!
  sleep ${WAIT:-30}
  echo "round $round $(basename $jar): first Insert after ${WAIT:-30} s"
  loadtest/bin/simdex-loadtest run --target 127.0.0.1:17411 --method insert --batch 1000 --concurrency 1 --requests 1 --duration 120s --warmup 0s --runs 1 2>&1 | grep "run 1" | sed 's/.*latency/   latency/'
  loadtest/bin/simdex-loadtest run --target 127.0.0.1:17411 --method insert --batch 1000 --concurrency 1 --requests 20 --duration 120s --warmup 0s --runs 1 2>&1 | grep "run 1" | sed 's/.*latency/   next 20 Inserts: latency/'
  kill $SP; wait $SP
done
done
