#!/bin/bash
# A/B: base pages with Chronicle Map entry checksums (HEAD a36c4a3) against without (this change).
# Per jar: 10M BulkLoad into a 50M-sized store (2.5 KB pages, as at 50M), 10M into a 10M-sized
# store, then batched Dedup at 10M (1,000 per call, c=2, 3 runs). Jars: /tmp/lt/A.jar, /tmp/lt/B.jar.
cd /work/main
OUT=loadtest/results/session4
summ() { python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
for r in d['reports']:
  m=r['median']; print('  ', sys.argv[1].split('/')[-1], r['settings']['target'], 'per s', m.get('itemsPerSecond', m['requestsPerSecond']), 'runs', [x.get('itemsPerSecond') for x in r['runs']])
" $1; }
for jar in ${JARS:-A B}; do
  export SIMDEX_LOADTEST_JAR=/tmp/lt/$jar.jar
  for expected in 50000000 10000000; do
    pkill -f "serve --kind"; sleep 2
    rm -rf /tmp/s4/ab; sync; echo 3 > /proc/sys/vm/drop_caches
    loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s4/ab --expected $expected > /tmp/s4/ab-$jar.log 2>&1 &
    SP=$!
    sleep 8
    echo "$jar: 10M into a store sized for $expected"
    loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 10000000 --batch 5000 --concurrency 2 --via bulkload --no-progress --json $OUT/ab-$jar-load-$expected.json 2>&1 | grep load:
    if [ $expected = 10000000 ]; then
      loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
      EP=$!
      sleep 5
      loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412 --stored 10000000 --method dedup --batch 1000 --concurrency 2 --duration 8s --runs 3 --warmup 3s --json $OUT/ab-$jar-dedup-10m.json > /dev/null 2>&1
      summ $OUT/ab-$jar-dedup-10m.json
      kill $EP; wait $EP
    fi
    kill $SP; wait $SP
  done
done
