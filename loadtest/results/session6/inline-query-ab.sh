#!/bin/bash
# A/B: handlers on the pool (default) vs Query inline on the transport thread (both servers alike).
cd /work/main
for r in 1 2 3; do
  echo "=== pool, round $r"
  unset SIMDEX_INLINE
  JAR=/tmp/lt/S6c.jar TAG=abpool$r ROUNDS=1 RATE=15000 loadtest/results/session6/open-loop.sh
  echo "=== inline Query, round $r"
  export SIMDEX_INLINE=Query
  # S6inl.jar: this commit's code with inline-query-not-landed.patch applied.
  JAR=/tmp/lt/S6inl.jar TAG=abinline$r ROUNDS=1 RATE=15000 loadtest/results/session6/open-loop.sh
done
