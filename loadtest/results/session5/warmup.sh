#!/bin/bash
# Is the first Dedup run's deficit a warmup that time cures? 10M BulkLoad, then batched Dedup
# with a 10 s warmup and 5 runs, then batched Query (target 2) on the same server.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/G.jar}
OUT=loadtest/results/session5
pkill -f "serve --kind"; sleep 2
rm -rf /tmp/s5/data; sync; echo 3 > /proc/sys/vm/drop_caches
loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s5/data --expected 10000000 > /tmp/s5/warmup.log 2>&1 &
SP=$!
loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
EP=$!
sleep 8
loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 10000000 --batch 5000 --concurrency 2 --via bulkload --no-progress --json $OUT/warmup-load.json 2>&1 | grep load:
S="--target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412 --stored 10000000 --batch 1000 --concurrency 2 --duration 8s"
loadtest/bin/simdex-loadtest run $S --method dedup --runs 5 --warmup 10s --json $OUT/warmup-dedup.json > /dev/null 2>&1
loadtest/bin/simdex-loadtest run $S --runs 3 --warmup 5s --json $OUT/warmup-query.json > /dev/null 2>&1
for f in warmup-dedup warmup-query; do python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
for r in d['reports']:
  print(sys.argv[1].split('/')[-1], r['settings']['target'], 'median', r['median'].get('itemsPerSecond'), 'runs', [x.get('itemsPerSecond') for x in r['runs']])
" $OUT/$f.json; done
kill $SP $EP; wait $SP $EP 2>/dev/null
