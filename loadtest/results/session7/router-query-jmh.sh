#!/bin/bash
# The unary Query path in-process (RouterQueryBenchmark, batch 1, 200K stored), before (A) and
# after (B) the allocation-light change, alternating, with JMH's GC profiler for bytes per call.
# Env: A, B (loadtest jars), PAIRS (2).
cd /work/main
for pair in $(seq 1 ${PAIRS:-2}); do
  for v in A B; do
    echo "== $v pair $pair"
    SIMDEX_LOADTEST_JAR=${!v} loadtest/bin/simdex-loadtest jmh RouterQuery -p batch=1 -prof gc 2>&1 \
      | grep -E "^RouterQueryBenchmark.query(:gc.alloc.rate.norm)? "
  done
done
