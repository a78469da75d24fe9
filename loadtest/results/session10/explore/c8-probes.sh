#!/bin/bash
# simdex (embedded, 10M stored) alone at c=8, closed loop, 3 runs per probe kind on one server:
# planted (about 2 in 3 probes match, so ids are resolved) vs random (almost none match).
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/S10t.jar}
D=${D:-/tmp/s7/data10m}
loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 > /tmp/s10/c8p-srv.log 2>&1 &
SP=$!
sleep 12
for pair in 1 2; do
  for p in planted random; do
    J=loadtest/results/session10/explore/c8p-$p-$pair.json
    loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --stored 10000000 --probes $p --concurrency 8 --duration 8s --runs 3 --warmup 5s --json $J > /dev/null 2>&1
    python3 -c "
import json,sys;d=json.load(open(sys.argv[1]));r=d['reports'][0]
print(sys.argv[2], 'median calls/s', r['median']['requestsPerSecond'], 'runs', [x['requestsPerSecond'] for x in r['runs']])" $J "$p $pair"
  done
done
kill $SP; wait $SP 2>/dev/null
