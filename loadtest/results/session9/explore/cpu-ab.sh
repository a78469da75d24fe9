#!/bin/bash
# Per-thread CPU of simdex and echo servers under a fixed open-loop rate, one target at a time.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/S9base.jar}
D=${D:-/tmp/s7/data10m}
RATE=${RATE:-20000}
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g ${XOPTS:-}" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 ${SARGS:-} > /tmp/s9/srv.log 2>&1 &
SP=$!
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g ${EOPTS:-}" loadtest/bin/simdex-loadtest serve --kind echo --port 17412 ${SARGS:-} > /dev/null 2>&1 &
EP=$!
sleep 12
for t in simdex=127.0.0.1:17411 echo=127.0.0.1:17412; do
  name=${t%%=*}
  pid=$([ $name = simdex ] && echo $SP || echo $EP)
  spid=$(pgrep -P $pid java || echo $pid)
  echo "== $name (pid $spid) at $RATE/s"
  loadtest/bin/simdex-loadtest run --target $t --stored 10000000 --rate $RATE --duration 30s --runs 1 --warmup 10s --settle-cycles 2 --json /tmp/s9/cpu-$name.json > /dev/null 2>/tmp/s9/cpu-$name.log &
  LP=$!
  sleep 22
  python3 /tmp/s9/threadcpu.py $spid 5 4
  wait $LP
  python3 -c "
import json;d=json.load(open('/tmp/s9/cpu-$name.json'));r=d['reports'][0]['runs'][0] if 'reports' in d else d['runs'][0]
print('  calls/s', r['requestsPerSecond'], 'p50', r['latencyMicros']['p50'], 'p99', r['latencyMicros']['p99'], 'server', (r.get('serverHandlingMicros') or {}).get('p50'), (r.get('serverHandlingMicros') or {}).get('p99'))"
done
kill $SP $EP; wait $SP $EP 2>/dev/null
