#!/bin/bash
# Settling cycles before the measured runs (B: session 8's generator, whose handling-times calls
# also go through a future stub) against none (A: the jar of 0c429f6); the servers are the same
# code. One open-loop.sh round per jar, alternating, fixed 15,000/s. Env: A, B (loadtest jars), PAIRS (3).
cd /work/main
for pair in $(seq 1 ${PAIRS:-3}); do
  for v in A B; do
    echo "=== $v pair $pair"
    JAR=${!v} ROUNDS=1 RATE=15000 TAG=settle-$v$pair loadtest/results/session8/open-loop.sh
  done
done
