#!/usr/bin/env bash
# Two builds of `xeanalyze resolve` on one input of the resolve benchmark, alternating, each run under /usr/bin/time: a
# quick A/B of one change (B resolve compares the checkout with one baseline commit and checks the outputs; this takes
# any two built CLIs). Each run writes a new output file (the previous one removed and `sync` first, as B resolve does).
# Prints every run, then the medians of wall, user and system time per build.
#   [A_ENV="NAME=VALUE ..."] [B_ENV="NAME=VALUE ..."] \
#     tools/bench/resolve-ab.sh A_DLL B_DLL [text|va|histogram] [RUNS] [DIR]
# A_ENV and B_ENV add environment settings to one build's runs (e.g. B_ENV=DOTNET_TieredPGO=0 with the same DLL twice).
# A_DLL, B_DLL: xeanalyze.dll of each build, e.g.
# /tmp/xebench-baseline-cli-<commit>/XeAnalyzer.Cli/bin/Release/net10.0/xeanalyze.dll (B resolve --baseline <commit>
# builds one there) and XeAnalyzer.Cli/bin/Release/net10.0/xeanalyze.dll.
set -euo pipefail
cd "$(dirname "$0")/../.."
a="$1"; b="$2"; shape="${3:-text}"; runs="${4:-5}"; dir="${5:-/tmp/xeresolve}"
ext=txt; [ "$shape" = histogram ] && ext=xml
input="$dir/${shape}_750000x25.$ext"
[ -f "$input" ] || { echo "$input does not exist: run B resolve --dir $dir first" >&2; exit 1; }
modules=(); [ "$shape" = va ] && modules=(--modules "$dir/modules.txt")
out="$dir/ab.out"; log=$(mktemp)
trap 'rm -f "$out" "$log"' EXIT
for r in $(seq 1 "$runs"); do
  for build in A B; do
    dll="$a"; extra="${A_ENV:-}"; [ "$build" = B ] && { dll="$b"; extra="${B_ENV:-}"; }
    rm -f "$out"; sync
    env $extra /usr/bin/time -f "%e %U %S" -o "$log" dotnet "$dll" resolve "$input" "${modules[@]}" \
      --symbols symbols-cache --offline \
      --sql-build 99.0.1000.1 --catalog XeAnalyzer.Tests/TestData/catalog/fixture-buildinfo.json -o "$out" 2>/dev/null
    read -r wall user sys < "$log"
    echo "$shape run $r $build: wall $wall s, user $user s, sys $sys s"
  done
done | tee /dev/stderr | awk '
  { sub(":", "", $4); w[$4] = w[$4] " " $6; u[$4] = u[$4] " " $9; s[$4] = s[$4] " " $12 }
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  END {
    for (k in w)
      printf "build %s: median wall %.2f s, user %.2f s, sys %.2f s\n", k, median(w[k]), median(u[k]), median(s[k])
  }' | sort
