#!/bin/bash
# Does a fixed young generation steady batched Dedup? Alternating server JVM options:
# default (-Xmx4g, G1 sizes the young generation) and -Xmn1g. Each round: 10M BulkLoad into a
# 10M-sized store, Dedup (10 s warmup, 5 runs), Query (5 s warmup, 3 runs).
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/G.jar}
OUT=loadtest/results/session5
for round in default-2 xmn1g-2 default-3 xmn1g-3; do
  opts="-Xmx4g -XX:MaxDirectMemorySize=2g"
  [ "${round%-*}" = xmn1g ] && opts="$opts -Xmn1g"
  pkill -f "serve --kind"; sleep 2
  rm -rf /tmp/s5/data; sync; echo 3 > /proc/sys/vm/drop_caches
  JAVA_OPTS="$opts -Xlog:gc:file=/tmp/s5/gc-$round.log" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s5/data --expected 10000000 > /tmp/s5/gc-$round.out 2>&1 &
  SP=$!
  loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
  EP=$!
  sleep 8
  echo "== $round: $opts"
  loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 10000000 --batch 5000 --concurrency 2 --via bulkload --no-progress --json $OUT/gc-$round-load.json 2>&1 | grep load:
  S="--target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412 --stored 10000000 --batch 1000 --concurrency 2 --duration 8s"
  loadtest/bin/simdex-loadtest run $S --method dedup --runs 5 --warmup 10s --json $OUT/gc-$round-dedup.json > /dev/null 2>&1
  loadtest/bin/simdex-loadtest run $S --runs 3 --warmup 5s --json $OUT/gc-$round-query.json > /dev/null 2>&1
  for f in dedup query; do python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
r=d['reports'][0]; print(sys.argv[2], r['settings']['target'], 'median', r['median'].get('itemsPerSecond'), 'runs', [x.get('itemsPerSecond') for x in r['runs']])
" $OUT/gc-$round-$f.json $f; done
  echo "young pauses: $(grep -c 'Pause Young' /tmp/s5/gc-$round.log)"
  kill $SP $EP; wait $SP $EP 2>/dev/null
done
