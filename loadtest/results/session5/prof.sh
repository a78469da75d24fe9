#!/bin/bash
# 10M BulkLoad into a 50M-sized store with JFR on the server; server and client CPU.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/A.jar}
TAG=${TAG:-a}
COUNT=${COUNT:-10000000}
pkill -f "serve --kind"; sleep 2
rm -rf /tmp/s5/data; sync; echo 3 > /proc/sys/vm/drop_caches
loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s5/data --expected ${EXPECTED:-50000000} > /tmp/s5/serve-$TAG.log 2>&1 &
SP=$!
sleep 8
JP=$(pgrep -f "serve --kind embedded --port 17411")
[ -n "$JFR" ] && jcmd $JP JFR.start name=x settings=profile filename=/tmp/s5/load-$TAG.jfr > /dev/null
/usr/bin/time -f "client: user %U s, sys %S s, wall %e s" loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count $COUNT --batch 5000 --concurrency 2 --via bulkload --no-progress --json /tmp/s5/load-$TAG.json 2>&1 | grep -E "load:|client:"
awk '{print "server cpu: user", $14/100, "s, sys", $15/100, "s"}' /proc/$JP/stat
[ -n "$JFR" ] && jcmd $JP JFR.stop name=x > /dev/null
kill $SP; wait $SP 2>/dev/null
