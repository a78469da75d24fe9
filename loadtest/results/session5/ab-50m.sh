#!/bin/bash
# Target 5, same-session A/B at 50M: this session's code (E) with Dedup and Query after its
# load, the session-4 code (A, commit fd39e59) load only, then E's load again.
# full-50m.sh: empty data dir, page cache dropped, 50M BulkLoad (batch 5,000, 2 streams), server CPU.
cd /work/main
D=loadtest/results/session5
export OUT=$D
for run in "E e1" "A a1 LOADONLY" "E e2 LOADONLY"; do
  set -- $run
  echo "== jar $1 run $2"
  if [ -n "$3" ]; then LOADONLY=1 TAG=$2 JAR=/tmp/lt/$1.jar $D/full-50m.sh; else TAG=$2 JAR=/tmp/lt/$1.jar $D/full-50m.sh; fi
done
