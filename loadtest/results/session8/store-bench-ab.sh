#!/bin/bash
# Target 1 before and after remembered page addresses: store-bench at 10M (store against the
# ideal index, one thread, in one JVM), A (0f0f11c) and B (408141d) alternating. Env: A, B (jars), PAIRS (2).
cd /work/main
for pair in $(seq 1 ${PAIRS:-2}); do
  for v in A B; do
    rm -rf /tmp/s8/sb10m
    echo "=== $v pair $pair"
    SIMDEX_LOADTEST_JAR=${!v} JAVA_OPTS="-Xmx8g -XX:MaxDirectMemorySize=2g" loadtest/bin/simdex-loadtest store-bench \
      --count 10000000 --queries 100000 --rounds 3 --dir /tmp/s8/sb10m > loadtest/results/session8/store-bench-$v$pair.json 2>/dev/null
    python3 -c "import json,sys;d=json.load(open(sys.argv[1]));print('  ', {k: d[k] for k in d if k not in ('rounds','settings')})" loadtest/results/session8/store-bench-$v$pair.json
  done
done
rm -rf /tmp/s8/sb10m
