#!/bin/bash
# A/B of the allocation-light unary Query path: the same open-loop.sh round (closed loop c=8,
# then the open loop at a fixed rate) alternating the jar before (A) and after (B) the change.
# Env: A, B (loadtest jars), PAIRS (2), RATE (14000).
cd /work/main
for pair in $(seq 1 ${PAIRS:-2}); do
  for v in A B; do
    jar=${!v}
    echo "== $v pair $pair ($jar)"
    JAR=$jar ROUNDS=1 RATE=${RATE:-14000} TAG=lean-$v$pair loadtest/results/session7/open-loop.sh
  done
done
