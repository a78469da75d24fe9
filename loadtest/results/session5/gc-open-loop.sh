#!/bin/bash
# Targets 3b/3c: is the open loop's tail GC pauses? Unary Query, 10M stored; the simdex server
# with G1 (the default) against ZGC, alternating, two rounds. Each round: closed loop c=8 against
# the echo floor, then the open loop at half the echo's c=8 rate, with the server's handling
# times reset before it.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/G.jar}
OUT=loadtest/results/session5
summ() { python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
for r in d['reports']:
  m=r['median']; print('  ', sys.argv[1].split('/')[-1], r['settings']['target'], 'calls/s', m['requestsPerSecond'], 'p50', m['latencyMicros']['p50'], 'p99', m['latencyMicros']['p99'], 'runs p99', [x['latencyMicros']['p99'] for x in r['runs']])
" $1; }
pkill -f "serve --kind"; sleep 2
D=/tmp/s5/data10m
rm -rf $D
loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 > /tmp/s5/gcol-load.log 2>&1 &
SP=$!
sleep 8
loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 10000000 --batch 5000 --concurrency 2 --via bulkload --no-progress 2>&1 | grep load:
kill $SP; wait $SP; sync; sleep 3
for round in 1 2; do
for gc in G1 Z; do
  JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g -XX:+Use${gc}GC" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 > /tmp/s5/gcol-$gc.log 2>&1 &
  SP=$!
  loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
  EP=$!
  sleep 10
  echo "round $round, simdex server -XX:+Use${gc}GC"
  S="--target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412"
  J=$OUT/gcol-$gc-r$round
  loadtest/bin/simdex-loadtest run $S --stored 10000000 --concurrency 8 --duration 8s --runs 3 --warmup 5s --json $J-c8.json > /dev/null 2>&1; summ $J-c8.json
  rate=$(python3 -c "import json;d=json.load(open('$J-c8.json'));print(int([r for r in d['reports'] if r['settings']['target']=='echo'][0]['median']['requestsPerSecond']/2))")
  echo "   open loop at $rate/s (half the echo's c=8 median)"
  ops/bin/simdex handling-times --target 127.0.0.1:17411 --reset > /dev/null
  loadtest/bin/simdex-loadtest run $S --stored 10000000 --rate $rate --duration 8s --runs 3 --warmup 5s --json $J-open.json > /dev/null 2>&1; summ $J-open.json
  ops/bin/simdex handling-times --target 127.0.0.1:17411 | grep "Simdex/Query" | sed 's/^/   handling: /'
  kill $SP $EP; wait $SP $EP; sleep 2
done
done
