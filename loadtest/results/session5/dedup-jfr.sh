#!/bin/bash
cd /work/main
for jar in E F; do
  export SIMDEX_LOADTEST_JAR=/tmp/lt/$jar.jar
  pkill -f "serve --kind"; sleep 2
  rm -rf /tmp/s5/data; sync; echo 3 > /proc/sys/vm/drop_caches
  loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s5/data --expected 10000000 > /tmp/s5/dj-$jar.log 2>&1 &
  SP=$!
  sleep 8
  JP=$(pgrep -f "serve --kind embedded --port 17411")
  loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 10000000 --batch 5000 --concurrency 2 --via bulkload --no-progress 2>&1 | grep load:
  jcmd $JP JFR.start name=x settings=profile filename=/tmp/s5/dedup-$jar.jfr > /dev/null
  loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --stored 10000000 --method dedup --batch 1000 --concurrency 2 --duration 8s --runs 3 --warmup 3s --json /tmp/s5/dj-$jar.json 2>&1 | tail -1
  jcmd $JP JFR.stop name=x > /dev/null
  kill $SP; wait $SP 2>/dev/null
  jfr print --events jdk.ExecutionSample --stack-depth 64 /tmp/s5/dedup-$jar.jfr > /tmp/s5/dedup-$jar.txt
  python3 /tmp/s5/split.py /tmp/s5/dedup-$jar.txt "" "BucketLocks,HeldKeys,BucketTable.probe,DocMaps,Chronicle"
done
