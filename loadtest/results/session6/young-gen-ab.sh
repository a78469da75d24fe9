#!/bin/bash
# A/B: both servers on the launcher's heap settings vs a fixed 1 GB young generation.
cd /work/main
for r in 1 2 3; do
  echo "=== default heap, round $r"
  SOPTS="-Xmx4g -XX:MaxDirectMemorySize=2g -Xlog:gc:file=/tmp/s6/gc-abdef$r-%p.log" JAR=/tmp/lt/S6c.jar TAG=gcdef$r ROUNDS=1 RATE=15000 loadtest/results/session6/open-loop.sh
  echo "=== -Xmn1g, round $r"
  SOPTS="-Xmx4g -Xmn1g -XX:MaxDirectMemorySize=2g -Xlog:gc:file=/tmp/s6/gc-abxmn$r-%p.log" JAR=/tmp/lt/S6c.jar TAG=gcxmn$r ROUNDS=1 RATE=15000 loadtest/results/session6/open-loop.sh
done
