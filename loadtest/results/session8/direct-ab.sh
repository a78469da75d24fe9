#!/bin/bash
# Handlers on the transport thread (B: both servers built with gRPC's direct executor, every call
# handled on its connection's Netty event loop, by the experimental -Dsimdex.experiment.direct=true)
# against the handler pool (A: one thread per core). One open-loop.sh round each, alternating,
# fixed 15,000/s. Env: JAR (a loadtest jar with the experimental switch), PAIRS (3).
cd /work/main
for pair in $(seq 1 ${PAIRS:-3}); do
  for v in A B; do
    echo "=== $v pair $pair"
    if [ $v = B ]; then X="-Dsimdex.experiment.direct=true"; else X=""; fi
    SOPTS="-Xmx4g -XX:MaxDirectMemorySize=2g $X" ROUNDS=1 RATE=15000 TAG=direct-$v$pair loadtest/results/session8/open-loop.sh
  done
done
