#!/bin/bash
# Target 3b: unary Query at half the echo's max rate, gRPC's unbounded handler pool (--threads 0)
# against the default of one thread per core; both servers use the same setting. Three rounds.
cd /work/main
export SIMDEX_LOADTEST_JAR=/tmp/lt/s4.jar
OUT=loadtest/results/session4
summ() { python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
for r in d['reports']:
  m=r['median']; print('  ', sys.argv[1].split('/')[-1], r['settings']['target'], 'calls/s', m['requestsPerSecond'], 'p50', m['latencyMicros']['p50'], 'p99', m['latencyMicros']['p99'], 'runs p99', [x['latencyMicros']['p99'] for x in r['runs']])
" $1; }
pkill -f "serve --kind"; sleep 2
D=/tmp/s4/data10m
if [ ! -d $D ]; then
  mkdir -p /tmp/s4
  loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 > /tmp/s4/load.log 2>&1 &
  sleep 8
  loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 10000000 --batch 5000 --concurrency 2 --via bulkload --no-progress 2>&1 | grep load:
  kill %1; wait; sync; sleep 3
fi
for round in 1 2 3; do
for threads in 0 default; do
  T=$([ $threads = default ] && echo "" || echo "--threads $threads")
  loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 $T > /tmp/s4/s$threads.log 2>&1 &
  SP=$!
  loadtest/bin/simdex-loadtest serve --kind echo --port 17412 $T > /tmp/s4/e$threads.log 2>&1 &
  EP=$!
  sleep 10
  echo "round $round, handler threads=$threads (0: gRPC's unbounded pool)"
  S="--target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412"
  J=$OUT/threads-$threads-r$round
  loadtest/bin/simdex-loadtest run $S --stored 10000000 --concurrency 8 --duration 8s --runs 3 --warmup 5s --json $J-c8.json > /dev/null 2>&1; summ $J-c8.json
  rate=$(python3 -c "import json;d=json.load(open('$J-c8.json'));print(int([r for r in d['reports'] if r['settings']['target']=='echo'][0]['median']['requestsPerSecond']/2))")
  echo "   open loop at $rate/s (half the echo's c=8 median)"
  ops/bin/simdex handling-times --target 127.0.0.1:17411 --reset > /dev/null
  loadtest/bin/simdex-loadtest run $S --stored 10000000 --rate $rate --duration 8s --runs 3 --warmup 5s --json $J-open.json > /dev/null 2>&1; summ $J-open.json
  ops/bin/simdex handling-times --target 127.0.0.1:17411 | grep "Simdex/Query" | sed 's/^/   handling: /'
  kill $SP $EP; wait $SP $EP; sleep 2
done
done
