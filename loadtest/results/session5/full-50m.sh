#!/bin/bash
# Target 5: 50M BulkLoad into a 50M-sized store (empty data dir, page cache dropped), then batched Dedup and Query at 50M.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/B.jar}
TAG=${TAG:-b}
OUT=${OUT:-/tmp/s5}
pkill -f "serve --kind"; sleep 2
rm -rf /tmp/s5/data; sync; echo 3 > /proc/sys/vm/drop_caches
loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s5/data --expected 50000000 > /tmp/s5/full-$TAG.log 2>&1 &
SP=$!
loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
EP=$!
sleep 8
JP=$(pgrep -f "serve --kind embedded --port 17411")
loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 50000000 --batch 5000 --concurrency 2 --via bulkload --no-progress --json $OUT/full-load-50m-$TAG.json 2>&1 | grep load:
awk '{print "server cpu during the load: user", $14/100, "s, sys", $15/100, "s"}' /proc/$JP/stat
if [ -z "$LOADONLY" ]; then
S="--target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412"
loadtest/bin/simdex-loadtest run $S --stored 50000000 --method dedup --batch 1000 --concurrency 2 --duration 8s --runs 3 --warmup 3s --json $OUT/full-dedup-50m-$TAG.json > /dev/null 2>&1
loadtest/bin/simdex-loadtest run $S --stored 50000000 --batch 1000 --concurrency 2 --duration 8s --runs 3 --warmup 5s --json $OUT/full-query-50m-$TAG.json > /dev/null 2>&1
for f in full-dedup-50m-$TAG full-query-50m-$TAG; do python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
for r in d['reports']:
  m=r['median']; print(sys.argv[1].split('/')[-1], r['settings']['target'], 'per s', m.get('itemsPerSecond'), 'runs', [x.get('itemsPerSecond') for x in r['runs']])
" $OUT/$f.json; done
fi
ops/bin/simdex stats --target 127.0.0.1:17411 2>&1 | head -20
kill $SP $EP; wait
