#!/bin/bash
# simdex and echo alternating at a fixed rate; both servers with -Dsimdex.readBytes=$RB (0: Netty's default).
cd /work/main

RATE=${RATE:-21500}
for V in ${VS:-old fin old fin}; do
  case $V in fin) export SIMDEX_LOADTEST_JAR=/tmp/lt/S9fin.jar; RB=x;; old) export SIMDEX_LOADTEST_JAR=/tmp/lt/S9rb.jar; RB=0;; esac
  for rep in $(seq 1 ${REPS:-1}); do
  SO="${SOPTS:--Xms4g -Xmx4g -XX:+AlwaysPreTouch -XX:MaxDirectMemorySize=2g} -Dsimdex.readBytes=$RB"
  JAVA_OPTS="$SO" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s7/data10m --expected 10000000 > /tmp/s9/srv1.log 2>&1 &
  P1=$!
  JAVA_OPTS="$SO" loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
  P2=$!
  sleep 15
  T=rb$RB-$rep-$(date +%H%M%S)
  JAVA_OPTS="${GOPTS:-}" loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412 --stored 10000000 --rate $RATE --duration ${DUR:-8s} --runs ${RUNS:-3} --warmup 10s --json /tmp/s9/$T.json > /dev/null 2>&1
  python3 -c "
import json;d=json.load(open('/tmp/s9/$T.json'))
for r in d['reports']:
  print('  V=$V', r['settings']['target'][:6], 'p99 runs', [x['latencyMicros']['p99'] for x in r['runs']], 'srv p99 runs', [x['serverHandlingMicros']['p99'] for x in r['runs']], 'gen gc', [x['generator']['gcMillis'] for x in r['runs']])
print('  V=$V ratios', d['ratios'])"
  kill $P1 $P2; wait $P1 $P2 2>/dev/null
  done
done
