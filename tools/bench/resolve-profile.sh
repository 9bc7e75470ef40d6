#!/usr/bin/env bash
# Where `resolve` spends its CPU, by thread and by method: one run of the built CLI under `perf record` (needs the `linux-perf`
# package), on an input of the resolve benchmark (`B resolve` makes them in /tmp/xeresolve). Prints the CPU seconds of each
# thread (perf samples at 999 Hz) and the 25 methods with most samples. The README's per-thread figures for `resolve` come from it.
#   tools/bench/resolve-profile.sh [text|va|histogram] [DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
shape="${1:-text}"; dir="${2:-/tmp/xeresolve}"
ext=txt; [ "$shape" = histogram ] && ext=xml
input="$dir/${shape}_750000x25.$ext"
[ -f "$input" ] || { echo "$input does not exist: run B resolve --dir $dir first" >&2; exit 1; }
modules=(); [ "$shape" = va ] && modules=(--modules "$dir/modules.txt")
data=$(mktemp); out=$(mktemp)
trap 'rm -f "$data" "$out"' EXIT
DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 perf record -q -F 999 -g -o "$data" \
  dotnet XeAnalyzer.Cli/bin/Release/net10.0/xeanalyze.dll resolve "$input" "${modules[@]}" --symbols symbols-cache --offline \
  --sql-build 99.0.1000.1 --catalog XeAnalyzer.Tests/TestData/catalog/fixture-buildinfo.json -o "$out" 2>/dev/null
echo "CPU seconds by thread (samples / 999):"
perf script -i "$data" -F comm,tid 2>/dev/null | sort | uniq -c | sort -rn | awk '{ printf "  %6.2f s  %s %s\n", $1 / 999, $2, $3 }' | head -8
echo "methods with most samples (all threads):"
perf report -i "$data" --no-children --sort sym --stdio -g none 2>/dev/null | grep -v '^#' | grep '%' | head -25 | cut -c1-170
