#!/bin/bash
# Targets 3b and 3c with the server's handling time per run: unary Query, 10M stored, simdex
# (embedded default) and the echo floor, each a separate process with its default settings.
# Per round: closed loop c=8 (3 runs), then the open loop at half the echo's c=8 median (3 runs),
# every run with the server's own handling times of exactly its calls (reset before each run).
# Env: JAR (the loadtest jar), D (a data directory holding 10M loaded documents), ROUNDS, TAG,
# RATE (a fixed open-loop rate instead of half the echo's), SOPTS (both servers' JVM options),
# RUNS and WARMUP of the open loop (3 and 10s), SARGS (both servers' extra `serve` options),
# XOPTS (simdex's extra JVM options, e.g. logs), GOPTS (the generator's JVM options). Session 7:
# run lines on stderr are kept, with the wall-clock time each run ended, in $J-*.log.
# Session 9: SOPTS and GOPTS unset mean the launcher's defaults (since session 9: -Xms4g -Xmx4g).
# Session 10: OUT (where the JSON and logs go) and SRVLOG (simdex's server log) may be set.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-loadtest/target/simdex-loadtest.jar}
OUT=${OUT:-loadtest/results/session9}
D=${D:-/tmp/s7/data10m}
stamp() { while IFS= read -r l; do echo "$(date -u +%T.%3N) $l"; done; }
summ() { python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
for r in d['reports']:
  m=r['median']; s=m.get('serverHandlingMicros') or {}
  print('  ', r['settings']['target'], r['settings']['mode'], 'calls/s', m['requestsPerSecond'], 'p50', m['latencyMicros']['p50'], 'p99', m['latencyMicros']['p99'],
        '| runs p99', [x['latencyMicros']['p99'] for x in r['runs']], '| server p50', s.get('p50'), 'p99', s.get('p99'), 'runs server p99', [(x.get('serverHandlingMicros') or {}).get('p99') for x in r['runs']],
        'queued p99', [(x.get('serverHandlingMicros') or {}).get('queuedP99') for x in r['runs']],
        'generator JIT ms', [(x.get('generator') or {}).get('compileMillis') for x in r['runs']])
print('   ratios', d['ratios'])
" $1; }
for round in $(seq 1 ${ROUNDS:-3}); do
  JAVA_OPTS="${SOPTS:-}${XOPTS:+ $XOPTS}" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data $D --expected 10000000 ${SARGS:-} > ${SRVLOG:-/tmp/s9/ol-srv.log} 2>&1 &
  SP=$!
  JAVA_OPTS="${SOPTS:-}" loadtest/bin/simdex-loadtest serve --kind echo --port 17412 ${SARGS:-} > /dev/null 2>&1 &
  EP=$!
  sleep 12
  S="--target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412"
  J=$OUT/open-loop-${TAG:-x}-r$round
  echo "round $round"
  JAVA_OPTS="${GOPTS:-}" loadtest/bin/simdex-loadtest run $S --stored 10000000 --concurrency 8 --duration 8s --runs 3 --warmup 5s --json $J-c8.json 2>&1 >/dev/null | stamp > $J-c8.log; summ $J-c8.json
  half=$(python3 -c "import json;d=json.load(open('$J-c8.json'));print(int([r for r in d['reports'] if r['settings']['target']=='echo'][0]['median']['requestsPerSecond']/2))")
  rate=${RATE:-$half}
  echo "   open loop at $rate/s (${RATE:+fixed; }half the echo's c=8 median: $half)"
  JAVA_OPTS="${GOPTS:-}" loadtest/bin/simdex-loadtest run $S --stored 10000000 --rate $rate --duration 8s --runs ${RUNS:-3} --warmup ${WARMUP:-10s} --json $J-open.json 2>&1 >/dev/null | stamp > $J-open.log; summ $J-open.json
  kill $SP $EP; wait $SP $EP; sleep 2
done
