#!/bin/bash
# Handler threads, one per core (2, the default) against 4, on both servers alike, now with the
# queued part of the server's handling time per run. Fixed 15,000 calls/s (session 6's rate).
# Env: JAR, PAIRS (3).
cd /work/main
for pair in $(seq 1 ${PAIRS:-3}); do
  echo "=== 2 handler threads (default), pair $pair"
  JAR=$JAR TAG=thr2-$pair ROUNDS=1 RATE=15000 loadtest/results/session7/open-loop.sh
  echo "=== 4 handler threads, pair $pair"
  SARGS="--threads 4" JAR=$JAR TAG=thr4-$pair ROUNDS=1 RATE=15000 loadtest/results/session7/open-loop.sh
done
