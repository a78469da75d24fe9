#!/usr/bin/env bash
# The near-duplicate quality evaluation, from one command:
#   loadtest/quality/run-eval.sh [--seed N] [--long N] [--short N]
# Installs the Chinese sources if missing (Debian packages manpages-zh and fortunes-zh; needs root
# or sudo), compiles core, compiles io.simdex.loadtest.quality against core's classpath and picocli, runs
# QualityMain, and writes the Markdown report to stdout and to loadtest/quality/RESULTS.md.
# Takes about two minutes on two cores. Only this package is compiled, so the rest of loadtest/
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
# core is what is measured: compile the working tree's (nothing is installed into the local
# repository), then put its classes before its dependencies and picocli.
mvn -q compile -pl core -am >&2
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
mvn -q dependency:build-classpath -pl core -Dmdep.outputFile="$cp_file" >&2
picocli=$(find ~/.m2/repository/info/picocli/picocli -name 'picocli-*.jar' | sort -V | tail -1)
cp="$root/core/target/classes:$root/core/fingerprint/target/classes:$(cat "$cp_file"):$picocli"

classes="$root/loadtest/target/quality-classes"
rm -rf "$classes"
mkdir -p "$classes"
javac -nowarn -d "$classes" -cp "$cp" "$root"/loadtest/src/main/java/io/simdex/loadtest/quality/*.java

exec java ${JAVA_OPTS:--Xmx2g} -cp "$classes:$cp" io.simdex.loadtest.quality.QualityMain \
    --out "$root/loadtest/quality/RESULTS.md" "$@"
