#!/bin/bash
# store-bench at 10M, alternating: A = S10a (LocalQuery), B = S10t (A + BucketTable touching a
# page's cache lines before scanning them). One shard's 4 tables vs IdealIndex, one thread.
cd /work/main
for i in 1 2; do
  for v in a t; do
    SIMDEX_LOADTEST_JAR=/tmp/lt/S10$v.jar loadtest/bin/simdex-loadtest store-bench --count 10000000 --queries 200000 --rounds 5 \
      --dir /tmp/s10/sb --json loadtest/results/session10/store-bench-$v$i.json > /dev/null 2>&1
    python3 -c "
import json,sys;d=json.load(open(sys.argv[1]));print(sys.argv[2], {k:v for k,v in d.items() if not isinstance(v,(dict,list))})" loadtest/results/session10/store-bench-$v$i.json $v$i
  done
done
