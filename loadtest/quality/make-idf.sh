#!/usr/bin/env bash
# Remakes core's built-in idf tables, core/src/main/resources/io/simdex/core/text/idf-en.txt and
# idf-zh.txt (io.simdex.loadtest.quality.BuiltInIdf says how):
#   loadtest/quality/make-idf.sh [DOC_ROOT]     # DOC_ROOT: /usr/share/doc
# English comes from the files the installed Debian packages put under /usr/share/doc, so another
# machine with other packages makes another English table (its header gives the file count);
# Chinese comes from the HanLP jar core depends on, and is the same everywhere.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
docs=${1:-/usr/share/doc}

cd "$root"
mvn -q compile -pl core -am >&2
cp_file=$(mktemp)
classes=$(mktemp -d)
trap 'rm -rf "$cp_file" "$classes"' EXIT
mvn -q dependency:build-classpath -pl core -Dmdep.outputFile="$cp_file" >&2
cp="$root/core/target/classes:$(cat "$cp_file")"
javac -nowarn -d "$classes" -cp "$cp" "$root"/loadtest/src/main/java/io/simdex/loadtest/quality/{BuiltInIdf,Language}.java
java -cp "$classes:$cp" io.simdex.loadtest.quality.BuiltInIdf "$docs" "$root/core/src/main/resources/io/simdex/core/text"
wc -c "$root"/core/src/main/resources/io/simdex/core/text/idf-*.txt >&2
