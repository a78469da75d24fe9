#!/bin/bash
# Session 10: one ../session9/open-loop.sh round each (its output here), alternating, at half the echo's c=8 median (the
# issue's rate for 3b, each round's own echo); both with the launcher's defaults.
#   A: session 9's landed build (01c50c4)          JAR_A (/tmp/lt/S9land.jar)
#   B: this session's build                        JAR_B
# Both servers and the generator of a round run the same jar. Env: JAR_A, JAR_B, PAIRS (2),
# VARIANTS ("A B"), FIRST (1), P (the tag prefix).
cd /work/main
for pair in $(seq ${FIRST:-1} $(( ${FIRST:-1} + ${PAIRS:-2} - 1 ))); do
  for v in ${VARIANTS:-A B}; do
    echo "=== $v round $pair"
    case $v in
      A) OUT=loadtest/results/session10 SRVLOG=/tmp/s10/ol-srv.log JAR=$JAR_A SOPTS= GOPTS= ROUNDS=1 TAG=${P:-ab}-$v$pair loadtest/results/session9/open-loop.sh ;;
      B) OUT=loadtest/results/session10 SRVLOG=/tmp/s10/ol-srv.log JAR=$JAR_B SOPTS= GOPTS= ROUNDS=1 TAG=${P:-ab}-$v$pair loadtest/results/session9/open-loop.sh ;;
    esac
  done
done
