#!/bin/bash
# The session's server changes, one open-loop.sh round each, alternating, at half the echo's c=8
# median (the rate for 3b, each round's own echo):
#   A: 0f0f11c (handler pool, a Chronicle Map lookup per page)        JAR_A
#   B: 408141d (page addresses, small queries on the transport thread) JAR_B
#   C: 408141d with --no-inline-reads (page addresses only)            JAR_B
# Both servers of a round run the same jar and settings. Env: JAR_A, JAR_B, PAIRS (2),
# VARIANTS ("A B C"), FIRST (the first round's number, 1).
cd /work/main
for pair in $(seq ${FIRST:-1} $(( ${FIRST:-1} + ${PAIRS:-2} - 1 ))); do
  for v in ${VARIANTS:-A B C}; do
    echo "=== $v round $pair"
    case $v in
      A) JAR=$JAR_A SARGS= ;;
      B) JAR=$JAR_B SARGS= ;;
      C) JAR=$JAR_B SARGS=--no-inline-reads ;;
    esac
    JAR=$JAR SARGS=$SARGS ROUNDS=1 TAG=final-$v$pair loadtest/results/session8/open-loop.sh
  done
done
