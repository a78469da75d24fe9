#!/bin/bash
# The handler pool (A: 0f0f11c) against small queries inline (B: 408141d) at one fixed open-loop
# rate for both, 20,000 calls/s (between their half-echo rates), so simdex's own tail can be
# compared across the two whatever each echo does. Env: JAR_A, JAR_B, PAIRS (2).
cd /work/main
for pair in $(seq 1 ${PAIRS:-2}); do
  for v in A B; do
    echo "=== $v pair $pair"
    JAR_V=JAR_$v
    JAR=${!JAR_V} ROUNDS=1 RATE=20000 TAG=equal-$v$pair loadtest/results/session8/open-loop.sh
  done
done
