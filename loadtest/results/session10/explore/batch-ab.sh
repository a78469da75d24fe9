#!/bin/bash
# Target 2 after LocalQuery: batched Query (1,000 probes per call, c=2) on simdex at 10M stored,
# alternating A = session 9's build (/tmp/lt/S9land.jar), B = this session's (/tmp/lt/S10t.jar).
cd /work/main
D=${D:-/tmp/s7/data10m}
for pair in 1 2; do
  for v in A B; do
    export SIMDEX_LOADTEST_JAR=$([ $v = A ] && echo /tmp/lt/S9land.jar || echo /tmp/lt/S10t.jar)
    loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 > /tmp/s10/batch-srv.log 2>&1 &
    SP=$!
    sleep 12
    J=loadtest/results/session10/explore/batch-$v$pair.json
    loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --stored 10000000 --batch 1000 --concurrency 2 --duration 8s --runs 3 --warmup 5s --json $J > /dev/null 2>&1
    kill $SP; wait $SP 2>/dev/null
    python3 -c "
import json,sys;d=json.load(open(sys.argv[1]));r=d['reports'][0]
print(sys.argv[2], 'median fingerprints/s', r['median']['itemsPerSecond'], 'runs', [x['itemsPerSecond'] for x in r['runs']])" $J "$v$pair"
  done
done
