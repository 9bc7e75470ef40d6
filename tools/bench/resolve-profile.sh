#!/usr/bin/env bash
# Where `resolve` spends its CPU, by thread and by method: one run of the built CLI under `perf record` (needs the
# `linux-perf` package), on an input of the resolve benchmark (`B resolve` makes them in /tmp/xeresolve). Prints the CPU
# seconds of each thread (perf samples at 999 Hz), the samples of each thread in 0.2 s steps (about 200 a step is one
# busy core), the 25 methods with most samples, and the methods of the run's last 0.4 s. The per-thread figures for
# `resolve` in docs/benchmarks/ come from it. With KEEP=FILE in the environment the perf data is kept there (for perf
# report --comm/--time); with CLI=PATH another build's xeanalyze.dll runs.
#   tools/bench/resolve-profile.sh [text|va|histogram] [DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
shape="${1:-text}"; dir="${2:-/tmp/xeresolve}"
ext=txt; [ "$shape" = histogram ] && ext=xml
input="$dir/${shape}_750000x25.$ext"
[ -f "$input" ] || { echo "$input does not exist: run B resolve --dir $dir first" >&2; exit 1; }
modules=(); [ "$shape" = va ] && modules=(--modules "$dir/modules.txt")
data=$(mktemp); out=$(mktemp); rm -f "$out" # the CLI creates the output, as in B resolve (see IO/OutputFile)
trap 'rm -f "$out"; [ -n "${KEEP:-}" ] && mv "$data" "$KEEP" || rm -f "$data"' EXIT
DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 perf record -q -F 999 -g -o "$data" \
  dotnet "${CLI:-XeAnalyzer.Cli/bin/Release/net10.0/xeanalyze.dll}" resolve "$input" "${modules[@]}" \
  --symbols symbols-cache --offline \
  --sql-build 99.0.1000.1 --catalog XeAnalyzer.Tests/TestData/catalog/fixture-buildinfo.json -o "$out" 2>/dev/null
echo "CPU seconds by thread (samples / 999):"
perf script -i "$data" -F comm,tid 2>/dev/null | sort | uniq -c | sort -rn \
  | awk '{ printf "  %6.2f s  %s %s\n", $1 / 999, $2, $3 }' | head -8 || true
echo "methods with most samples (all threads):"
perf report -i "$data" --no-children --sort sym --stdio -g none 2>/dev/null \
  | grep -v '^#' | grep '%' | head -25 | cut -c1-170 || true
echo "samples by thread in 0.2 s steps (999 a second per busy core):"
perf script -i "$data" -F comm,time 2>/dev/null | awk '
  { t = $NF; sub(":", "", t); if (start == "") start = t; c = $1; if (c == ".NET") c = $1 "_" $2;
    b = int((t - start) * 5); n[b, c]++; if (b > last) last = b; seen[c] = 1 }
  END {
    printf "  t(s)"; for (c in seen) printf " %18s", c; print ""
    for (b = 0; b <= last; b++) { printf "  %4.1f", b / 5; for (c in seen) printf " %18d", n[b, c]; print "" }
  }'
end=$(perf script -i "$data" -F time 2>/dev/null | tail -1 | tr -d ' :')
echo "methods with most samples in the last 0.4 s (all threads, with callers' share):"
perf report -i "$data" --time "$(echo "$end - 0.4" | bc),$end" --children --sort sym --stdio -g none 2>/dev/null \
  | grep -v '^#' | grep '%' | grep -v '\] 0x0' | head -25 | cut -c1-170
