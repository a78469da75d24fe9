#!/bin/bash
# Time to create a 50M-sized store: one 5,000-document batch into an empty server.
cd /work/main
export SIMDEX_LOADTEST_JAR=${JAR:-/tmp/lt/C.jar}
pkill -f "serve --kind"; sleep 1; rm -rf /tmp/s5/data; sync; echo 3 > /proc/sys/vm/drop_caches
loadtest/bin/simdex-loadtest serve --kind embedded --port 17411 --data /tmp/s5/data --expected 50000000 > /tmp/s5/serve-create.log 2>&1 & SP=$!
sleep 8; JP=$(pgrep -f "serve --kind embedded --port 17411")
B=$(awk '{print $14+$15}' /proc/$JP/stat)
loadtest/bin/simdex-loadtest load --target 127.0.0.1:17411 --count 5000 --batch 5000 --concurrency 1 --via bulkload --no-progress 2>&1 | grep -E "load:"
awk -v b=$B '{print "server cpu for it:", ($14+$15-b)/100, "s (user+sys)"}' /proc/$JP/stat; du -sh /tmp/s5/data; kill $SP; wait $SP 2>/dev/null
