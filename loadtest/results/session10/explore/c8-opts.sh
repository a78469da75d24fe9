#!/bin/bash
# simdex (embedded, 10M stored) alone at c=8, closed loop, 3 runs, alternating server JVM options:
# variant 0 = the launcher's defaults, variant 1 = + $XOPTS. Env: JAR, XOPTS, PAIRS (2), T (tag).
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/S10t.jar}
D=${D:-/tmp/s7/data10m}
for pair in $(seq 1 ${PAIRS:-2}); do
  for v in 0 1; do
    JAVA_OPTS="$([ $v = 1 ] && echo "$XOPTS")" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 > /tmp/s10/c8o-srv.log 2>&1 &
    SP=$!
    sleep 12
    J=loadtest/results/session10/explore/c8-${T:-x}-$v-$pair.json
    loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --stored 10000000 --concurrency 8 --duration 8s --runs 3 --warmup 5s --json $J > /dev/null 2>&1
    kill $SP; wait $SP 2>/dev/null
    python3 -c "
import json,sys;d=json.load(open(sys.argv[1]));r=d['reports'][0]
print(sys.argv[2], 'median calls/s', r['median']['requestsPerSecond'], 'runs', [x['requestsPerSecond'] for x in r['runs']])" $J "variant $v pair $pair"
  done
done
