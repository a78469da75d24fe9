#!/bin/bash
# The session's landed changes, one open-loop.sh round each, alternating, at half the echo's c=8
# median (the rate for 3b, each round's own echo):
#   A: e704688 (session 8), every process with session 8's JVM options (-Xmx4g)         JAR_A
#   B: this session's build with the launcher's defaults: servers as before (-Xmx4g), the
#      generator on a fixed, pre-touched 4 GB heap collecting between runs; BurstReads.
#      Rounds final-*: JAR_B /tmp/lt/S9fin.jar, which also decoded ids from their bytes (a
#      change reverted after these rounds: JFR showed the lookup it needed costing more than the
#      decoding it saved). Rounds landed-*: JAR_B /tmp/lt/S9land.jar, the landed code.   JAR_B
# Both servers and the generator of a round run the same jar. Env: JAR_A, JAR_B, PAIRS (2),
# VARIANTS ("A B"), FIRST (1), P (the tag prefix, final).
cd /work/main
OLD="-Xmx4g -XX:MaxDirectMemorySize=2g"
for pair in $(seq ${FIRST:-1} $(( ${FIRST:-1} + ${PAIRS:-2} - 1 ))); do
  for v in ${VARIANTS:-A B}; do
    echo "=== $v round $pair"
    case $v in
      A) JAR=$JAR_A SOPTS=$OLD GOPTS=$OLD ROUNDS=1 TAG=${P:-final}-$v$pair loadtest/results/session9/open-loop.sh ;;
      B) JAR=$JAR_B SOPTS= GOPTS= ROUNDS=1 TAG=${P:-final}-$v$pair loadtest/results/session9/open-loop.sh ;;
    esac
  done
done
