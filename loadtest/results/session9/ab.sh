#!/bin/bash
# Session 9's changes, one open-loop.sh round each, alternating, at half the echo's c=8 median:
#   A: e704688 (session 8) with session 8's JVM options: -Xmx4g, the heap grown on demand  JAR_A
#   B: the session's first changes (jar /tmp/lt/S9new.jar: ids decoded from their bytes, the
#      generator collecting between runs) with the launcher as it was then: fixed, pre-touched
#      4 GB heaps for both servers and the generator (-Xms4g -Xmx4g -XX:+AlwaysPreTouch). The
#      servers' fixed heap was reverted after these rounds (REPORT, session 9)            JAR_B
# Both servers and the generator of a round run the same jar and options. Env: JAR_A, JAR_B,
# PAIRS (3), VARIANTS ("A B"), FIRST (1).
cd /work/main
OLD="-Xmx4g -XX:MaxDirectMemorySize=2g"
for pair in $(seq ${FIRST:-1} $(( ${FIRST:-1} + ${PAIRS:-3} - 1 ))); do
  for v in ${VARIANTS:-A B}; do
    echo "=== $v round $pair"
    case $v in
      A) JAR=$JAR_A SOPTS=$OLD GOPTS=$OLD ROUNDS=1 TAG=ab-$v$pair loadtest/results/session9/open-loop.sh ;;
      B) JAR=$JAR_B SOPTS= GOPTS= ROUNDS=1 TAG=ab-$v$pair loadtest/results/session9/open-loop.sh ;;
    esac
  done
done
