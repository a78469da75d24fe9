#!/bin/bash
# A/B of the page scan: B (readLong through Chronicle's Bytes view) against C (raw reads of the
# mapped page), alternating B C B C on one 10M store (Dedup inserts, so the store grows by a
# few 100K between runs). Batched Dedup and batched Query, 1,000 per call, c=2, 3 runs each.
cd /work/main
OUT=loadtest/results/session4
summ() { python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
for r in d['reports']:
  m=r['median']; print('  ', sys.argv[1].split('/')[-1], r['settings']['target'], 'per s', m.get('itemsPerSecond'), 'runs', [x.get('itemsPerSecond') for x in r['runs']])
" $1; }
pkill -f "serve --kind"; sleep 2
loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
EP=$!
for round in 1 2; do
  for jar in B C; do
    export SIMDEX_LOADTEST_JAR=/tmp/lt/$jar.jar
    loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s4/ab --expected 10000000 > /tmp/s4/scan-$jar.log 2>&1 &
    SP=$!
    sleep 8
    echo "round $round, $jar"
    J=$OUT/scan-$jar-r$round
    loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --stored 10000000 --method dedup --batch 1000 --concurrency 2 --duration 8s --runs 3 --warmup 3s --json $J-dedup.json > /dev/null 2>&1; summ $J-dedup.json
    loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --stored 10000000 --batch 1000 --concurrency 2 --duration 8s --runs 3 --warmup 5s --json $J-query.json > /dev/null 2>&1; summ $J-query.json
    kill $SP; wait $SP
  done
done
kill $EP
