#!/bin/bash
# A/B of the handler pool for both servers: a fixed pool (A, the default) against a ForkJoinPool
# in async mode with the same number of threads (B, -Dsimdex.fjp=true on the experiment's jar).
# Each pair: one open-loop.sh round per variant at a fixed rate. Env: JAR, PAIRS (3), RATE (14000).
cd /work/main
base="-Xmx4g -XX:MaxDirectMemorySize=2g"
for pair in $(seq 1 ${PAIRS:-3}); do
  echo "== A (fixed pool) pair $pair"
  SOPTS="$base" ROUNDS=1 RATE=${RATE:-14000} TAG=pool-A$pair loadtest/results/session7/open-loop.sh
  echo "== B (ForkJoinPool) pair $pair"
  SOPTS="$base -Dsimdex.fjp=true" ROUNDS=1 RATE=${RATE:-14000} TAG=fjp-B$pair loadtest/results/session7/open-loop.sh
done
