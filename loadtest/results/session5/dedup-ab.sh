#!/bin/bash
# Target 4: batched Dedup at 10M right after a 10M BulkLoad, alternating builds:
# E = this session's BulkLoad and store changes, F = E + primitive HeldKeys in BucketLocks.
cd /work/main
OUT=loadtest/results/session5
for run in E1 F1 E2 F2; do
  jar=${run:0:1}
  export SIMDEX_LOADTEST_JAR=/tmp/lt/$jar.jar
  pkill -f "serve --kind"; sleep 2
  rm -rf /tmp/s5/data; sync; echo 3 > /proc/sys/vm/drop_caches
  loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s5/data --expected 10000000 > /tmp/s5/dedup-$run.log 2>&1 &
  SP=$!
  loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
  EP=$!
  sleep 8
  echo "== $run"
  loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 10000000 --batch 5000 --concurrency 2 --via bulkload --no-progress --json $OUT/dedup-ab-load-$run.json 2>&1 | grep load:
  loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412 --stored 10000000 --method dedup --batch 1000 --concurrency 2 --duration 8s --runs 3 --warmup 3s --json $OUT/dedup-ab-$run.json > /dev/null 2>&1
  python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
r=d['reports'][0]; print('dedup', r['settings']['target'], 'median', r['median'].get('itemsPerSecond'), 'runs', [x.get('itemsPerSecond') for x in r['runs']])
" $OUT/dedup-ab-$run.json
  kill $SP $EP; wait $SP $EP 2>/dev/null
done
