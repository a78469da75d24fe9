#!/bin/bash
# Closed loop c=8 against simdex on 10M, simdex on an empty store, and the echo (alternating runs).
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/S9base.jar}
rm -rf /tmp/s9/empty; mkdir -p /tmp/s9/empty
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s7/data10m --expected 10000000 > /tmp/s9/srv1.log 2>&1 &
P1=$!
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g" loadtest/bin/simdex-loadtest serve --kind embedded --port 17413 --data /tmp/s9/empty --expected 10000000 > /tmp/s9/srv3.log 2>&1 &
P3=$!
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g" loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
P2=$!
sleep 15
loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --compare empty=127.0.0.1:17413 --stored 10000000 --concurrency 8 --duration 8s --runs 3 --warmup 5s --json /tmp/s9/c8a.json 2>&1 >/dev/null | grep median
loadtest/bin/simdex-loadtest run --target empty=127.0.0.1:17413 --compare echo=127.0.0.1:17412 --stored 10000000 --concurrency 8 --duration 8s --runs 3 --warmup 5s --json /tmp/s9/c8b.json 2>&1 >/dev/null | grep median
kill $P1 $P2 $P3; wait
