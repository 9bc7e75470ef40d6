#!/usr/bin/env bash
# Start-up of the published binary against the framework-dependent tool (docs/performance.md, "Start-up"): builds both,
# then runs `info` and `stacks` on the latch sample and `--version`, RUNS times each, the two alternating (one untimed
# run of each first), and prints every run's wall time, the medians, their ratio and whether the outputs are the same
# bytes (cmp of each run's stdout with the first framework-dependent run's).
#   tools/bench/startup.sh [RUNS]       (default 5)
# SKIP_BUILD=1 reuses the last build and publish; RID=... publishes for another RID of this machine (default: its own).
set -euo pipefail
cd "$(dirname "$0")/../.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 LC_ALL=C
runs="${1:-5}"
case "$(uname -m)" in
  x86_64) rid="${RID:-linux-x64}" ;;
  aarch64) rid="${RID:-linux-arm64}" ;;
  *) echo "startup: no default RID for $(uname -m): set RID" >&2; exit 2 ;;
esac
dll=XeAnalyzer.Cli/bin/Release/net10.0/xeanalyze.dll
bin="XeAnalyzer.Cli/bin/Release/net10.0/$rid/publish/xeanalyze"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  dotnet build XeAnalyzer.Cli -c Release >/tmp/startup-build.log 2>&1 || { tail -n 20 /tmp/startup-build.log; exit 1; }
  dotnet publish XeAnalyzer.Cli -c Release -r "$rid" >/tmp/startup-publish.log 2>&1 \
    || { tail -n 20 /tmp/startup-publish.log; exit 1; }
fi
[ -x "$bin" ] && [ -f "$dll" ] || { echo "startup: $bin or $dll missing (run without SKIP_BUILD)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "startup: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before"
echo "startup: framework-dependent: dotnet $dll; published: $bin ($(stat -c %s "$bin") bytes)"
status=0
bench() { # name, xeanalyze arguments...
  local name="$1"; shift
  dotnet "$dll" "$@" >"$work/$name.expected" 2>"$work/err" \
    || { echo "startup: $name failed:"; cat "$work/err"; exit 1; }
  "$bin" "$@" >/dev/null 2>&1 || true
  local r build start end
  for r in $(seq 1 "$runs"); do
    for build in tool binary; do
      start=$EPOCHREALTIME
      if [ "$build" = tool ]; then
        dotnet "$dll" "$@" >"$work/out" 2>/dev/null || true
      else
        "$bin" "$@" >"$work/out" 2>/dev/null || true
      fi
      end=$EPOCHREALTIME
      cmp -s "$work/out" "$work/$name.expected" && same=same || { same=DIFFERENT; status=1; }
      printf '%s run %d %s: %s s, output %s\n' "$name" "$r" "$build" \
        "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')" "$same" | tee -a "$work/runs"
    done
  done
}
bench info info sample-xel/latch_nesting_full
bench version --version
bench stacks stacks sample-xel/latch_nesting_full --symbols symbols-cache --binaries symbols-cache --offline
awk '
  { sub(":", "", $4); t[$1 " " $4] = t[$1 " " $4] " " $5; if ($8 != "same") bad[$1] = 1 }
  function median(list,   n, v, i, j, x) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { x = v[i]; v[i] = v[j]; v[j] = x }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  END {
    split("info version stacks", names, " ")
    for (i = 1; i <= 3; i++) {
      c = names[i]; a = median(t[c " tool"]); b = median(t[c " binary"])
      printf "%s: median tool %.3f s, binary %.3f s, ratio %.2f; outputs %s\n", c, a, b, b / a, \
        (c in bad) ? "DIFFER" : "the same bytes (cmp)"
    }
  }' "$work/runs"
echo "startup: load average $(cut -d' ' -f1-3 /proc/loadavg) after"
exit "$status"
