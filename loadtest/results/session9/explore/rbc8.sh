#!/bin/bash
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/S9rb.jar}
for RB in ${RBS:-0 1024}; do
  SO="-Xms4g -Xmx4g -XX:+AlwaysPreTouch -XX:MaxDirectMemorySize=2g -Dsimdex.readBytes=$RB"
  JAVA_OPTS="$SO" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s7/data10m --expected 10000000 > /tmp/s9/srv1.log 2>&1 &
  P1=$!
  JAVA_OPTS="$SO" loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
  P2=$!
  sleep 15
  T=rbc8-$RB-$(date +%H%M%S)
  loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412 --stored 10000000 --concurrency 8 --duration 8s --runs 3 --warmup 5s --json /tmp/s9/$T.json > /dev/null 2>&1
  python3 -c "
import json;d=json.load(open('/tmp/s9/$T.json'))
for r in d['reports']:
  print('  RB=$RB', r['settings']['target'][:6], 'calls/s runs', [x['requestsPerSecond'] for x in r['runs']], 'p99', [x['latencyMicros']['p99'] for x in r['runs']])
print('  RB=$RB ratios', d['ratios'])"
  kill $P1 $P2; wait $P1 $P2 2>/dev/null
done
