#!/bin/bash
# This session's Query path against the session's start, over gRPC: one open-loop.sh round per
# jar, alternating (A: main at 533f037, B: the lean path and queued times), fixed 15,000/s.
# Env: A, B (loadtest jars), PAIRS (3).
cd /work/main
for pair in $(seq 1 ${PAIRS:-3}); do
  for v in A B; do
    echo "=== $v pair $pair"
    JAR=${!v} ROUNDS=1 RATE=15000 TAG=session-$v$pair loadtest/results/session7/open-loop.sh
  done
done
