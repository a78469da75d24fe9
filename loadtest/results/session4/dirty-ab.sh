#!/bin/bash
# Is the 50M-sized load bound by the kernel's write-back of the mapped files? 10M BulkLoad into a
# 50M-sized store with the default dirty-page settings, then with write-back held off
# (dirty_background_ratio=50, dirty_ratio=80, dirty_expire_centisecs=360000); server CPU split
# into user and sys from /proc/PID/stat.
cd /work/main
export SIMDEX_LOADTEST_JAR=${SIMDEX_LOADTEST_JAR:-/tmp/lt/B.jar}
OUT=loadtest/results/session4
COUNT=${COUNT:-10000000}
defaults="$(sysctl -n vm.dirty_background_ratio) $(sysctl -n vm.dirty_ratio) $(sysctl -n vm.dirty_expire_centisecs)"
for mode in ${MODES:-default tuned}; do
  if [ $mode = tuned ]; then
    sysctl -q -w vm.dirty_background_ratio=50 vm.dirty_ratio=80 vm.dirty_expire_centisecs=360000
  fi
  pkill -f "serve --kind"; sleep 2
  rm -rf /tmp/s4/dirty; sync; echo 3 > /proc/sys/vm/drop_caches
  loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s4/dirty --expected 50000000 > /tmp/s4/dirty.log 2>&1 &
  SP=$!
  sleep 8
  JP=$(pgrep -f "serve --kind embedded --port 17411")
  echo "$mode write-back (background/dirty ratio, expire: $(sysctl -n vm.dirty_background_ratio) $(sysctl -n vm.dirty_ratio) $(sysctl -n vm.dirty_expire_centisecs)): $COUNT into a 50M-sized store"
  loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count $COUNT --batch 5000 --concurrency 2 --via bulkload --no-progress --json $OUT/dirty-$mode-$COUNT.json 2>&1 | grep load:
  awk '{print "   server cpu: user", $14/100, "s, sys", $15/100, "s"}' /proc/$JP/stat
  kill $SP; wait $SP
  set -- $defaults
  sysctl -q -w vm.dirty_background_ratio=$1 vm.dirty_ratio=$2 vm.dirty_expire_centisecs=$3
done
