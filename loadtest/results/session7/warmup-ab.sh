#!/bin/bash
# The load generator's warm-up: one target's whole warm-up then the other's (A) against both
# alternating in four slices (B); the servers are the same code. One open-loop.sh round per jar,
# alternating, fixed 15,000/s. Env: A, B (loadtest jars), PAIRS (3).
cd /work/main
for pair in $(seq 1 ${PAIRS:-3}); do
  for v in A B; do
    echo "=== $v pair $pair"
    JAR=${!v} ROUNDS=1 RATE=15000 TAG=warmup-$v$pair loadtest/results/session7/open-loop.sh
  done
done
