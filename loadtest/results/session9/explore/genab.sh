#!/bin/bash
# Echo and simdex alternating (--compare) at a fixed rate; the generator's JVM options vary: GOPTS.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/S9base.jar}
RATE=${RATE:-20000}; T=${T:-x}
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g ${SOPTS:-}" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s7/data10m --expected 10000000 > /tmp/s9/srv1.log 2>&1 &
P1=$!
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g ${SOPTS:-}" loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /dev/null 2>&1 &
P2=$!
sleep 12
for v in ${VARIANTS:-a b}; do
  case $v in a) G="-Xmx4g -XX:MaxDirectMemorySize=2g";; b) G="-Xmx4g -Xms4g -Xmn3g -XX:MaxDirectMemorySize=2g";; esac
  JAVA_OPTS="$G -Xlog:gc:file=/tmp/s9/gcgen-$T-$v.log" loadtest/bin/simdex-loadtest run --target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412 --stored 10000000 --rate $RATE --duration 8s --runs 3 --warmup 10s --json /tmp/s9/$T-$v.json > /dev/null 2>&1
  python3 -c "
import json;d=json.load(open('/tmp/s9/$T-$v.json'))
for r in d['reports']:
  for x in r['runs']:
    print('$v', r['settings']['target'][:6], 'p50', x['latencyMicros']['p50'], 'p99', x['latencyMicros']['p99'], 'p999', x['latencyMicros']['p999'], 'lag p99/p999/max', [x['dispatchLagMicros'][k] for k in ('p99','p999','max')], 'srv p99', x['serverHandlingMicros']['p99'], 'gen', x['generator'])
print('$v ratios', d['ratios'])"
  grep -c Pause /tmp/s9/gcgen-$T-$v.log
done
kill $P1 $P2; wait
