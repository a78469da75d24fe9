#!/bin/bash
cd /work/main
export SIMDEX_LOADTEST_JAR=/tmp/lt/jar-exec.jar
summ() { python3 -c "
import json,sys;d=json.load(open(sys.argv[1]))
for r in d['reports']:
  m=r['median']; print('  ', sys.argv[1].split('/')[-1], r['settings']['target'], 'calls/s', m['requestsPerSecond'], 'p50', m['latencyMicros']['p50'], 'p99', m['latencyMicros']['p99'], 'runs p99', [x['latencyMicros']['p99'] for x in r['runs']])
" $1; }
pkill -f "serve --kind"; sleep 2; rm -rf /tmp/ex; mkdir -p /tmp/ex
JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/ex/data --expected 10000000 > /tmp/ex/s.log 2>&1 &
sleep 8
loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 10000000 --batch 5000 --concurrency 2 --via bulkload --no-progress 2>&1 | grep load:
kill %1; wait; sync; sleep 3
for threads in 0 2; do
  JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g -Dsimdex.experiment.threads=$threads" loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/ex/data --expected 10000000 > /tmp/ex/s$threads.log 2>&1 &
  JAVA_OPTS="-Xmx4g -XX:MaxDirectMemorySize=2g -Dsimdex.experiment.threads=$threads" loadtest/bin/simdex-loadtest serve --kind echo --port 17412 > /tmp/ex/e$threads.log 2>&1 &
  sleep 10
  echo "executor threads=$threads (0: gRPC default)"
  S="--target simdex=127.0.0.1:17411 --compare echo=127.0.0.1:17412"
  loadtest/bin/simdex-loadtest run $S --stored 10000000 --concurrency 8 --duration 8s --runs 3 --warmup 5s --json /tmp/lt/exec-c8-t$threads.json > /dev/null 2>&1; summ /tmp/lt/exec-c8-t$threads.json
  rate=$(python3 -c "import json;d=json.load(open('/tmp/lt/exec-c8-t$threads.json'));print(int([r for r in d['reports'] if r['settings']['target']=='echo'][0]['median']['requestsPerSecond']/2))")
  echo "   open loop at $rate/s (half the echo's c=8 median)"
  ops/bin/simdex handling-times --target 127.0.0.1:17411 --reset > /dev/null
  loadtest/bin/simdex-loadtest run $S --stored 10000000 --rate $rate --duration 8s --runs 3 --warmup 3s --json /tmp/lt/exec-open-t$threads.json > /dev/null 2>&1; summ /tmp/lt/exec-open-t$threads.json
  ops/bin/simdex handling-times --target 127.0.0.1:17411 | grep "Simdex/Query" | sed 's/^/   handling: /'
  kill %1 %2; wait
done
