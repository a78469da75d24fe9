#!/usr/bin/env bash
# The near-duplicate quality evaluation, from one command:
#   loadtest/quality/run-eval.sh [--seed N] [--long N] [--short N] [-k K]
# Installs the Chinese sources if missing (Debian packages manpages-zh and fortunes-zh; needs root
# or sudo), builds core, compiles io.simdex.loadtest.quality against loadtest's classpath, runs
# QualityMain, and writes the Markdown report to stdout and to loadtest/quality/RESULTS.md.
# Takes under a minute on two cores. Only this package is compiled, so the rest of loadtest/
# need not build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ ! -d /usr/share/man/zh_CN ] || [ ! -f /usr/share/games/fortunes/tang300 ]; then
    echo "run-eval: installing manpages-zh and fortunes-zh (the Chinese sources)" >&2
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq manpages-zh fortunes-zh >&2
fi

cd "$root"
# core (and router, for the short-text rule) are what is measured: install the working tree's, then resolve loadtest's classpath.
mvn -q install -DskipTests -pl router -am >&2
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
mvn -q dependency:build-classpath -pl loadtest -Dmdep.outputFile="$cp_file" >&2
cp=$(cat "$cp_file")

classes="$root/loadtest/target/quality-classes"
rm -rf "$classes"
mkdir -p "$classes"
javac -nowarn -d "$classes" -cp "$cp" "$root"/loadtest/src/main/java/io/simdex/loadtest/quality/*.java

exec java ${JAVA_OPTS:--Xmx2g} -cp "$classes:$cp" io.simdex.loadtest.quality.QualityMain \
    --out "$root/loadtest/quality/RESULTS.md" "$@"
