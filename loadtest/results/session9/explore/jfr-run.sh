#!/bin/bash
# simdex server alone under a fixed open-loop rate, with JFR (profile settings) and a GC log.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/S9base.jar}
D=${D:-/tmp/s7/data10m}
RATE=${RATE:-20000}
T=${T:-x}
W=${W:-/tmp/s9}  # where the recording, GC log and JSON go (session 10: /tmp/s10)
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g ${JFR:+-XX:StartFlightRecording=settings=profile,filename=$W/$T.jfr }-Xlog:gc:file=$W/gc-$T.log ${XOPTS:-}" loadtest/bin/simdex-loadtest serve --kind ${KIND:-embedded} --port 17411 --data $D --expected 10000000 ${SARGS:-} > $W/srv-$T.log 2>&1 &
SP=$!
sleep 12
loadtest/bin/simdex-loadtest run --target 127.0.0.1:17411 --stored 10000000 --rate $RATE --duration 8s --runs 3 --warmup 10s --json $W/$T.json > /dev/null 2>$W/$T.log
kill $SP; wait $SP 2>/dev/null
python3 -c "
import json;d=json.load(open('$W/$T.json'))
for r in d['reports'][0]['runs']: print('  calls/s', r['requestsPerSecond'], 'p50', r['latencyMicros']['p50'], 'p99', r['latencyMicros']['p99'], 'server', (r.get('serverHandlingMicros') or {}).get('p50'), (r.get('serverHandlingMicros') or {}).get('p99'))"
