#!/bin/bash
# A/B: handler threads, one per core (2, the default) against 4, on both servers alike.
cd /work/main
for r in 1 2 3; do
  echo "=== 2 handler threads (default), round $r"
  JAR=${JAR:-/tmp/lt/S6e.jar} TAG=thr2-$r ROUNDS=1 RATE=14000 loadtest/results/session6/open-loop.sh
  echo "=== 4 handler threads, round $r"
  SARGS="--threads 4" JAR=${JAR:-/tmp/lt/S6e.jar} TAG=thr4-$r ROUNDS=1 RATE=14000 loadtest/results/session6/open-loop.sh
done
