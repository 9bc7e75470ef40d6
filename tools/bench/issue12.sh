#!/usr/bin/env bash
# Runs every issue-12 benchmark in sequence, each against the baseline commit it builds itself (380d976, or BASELINE),
# and keeps the whole output in one log. Run it on an otherwise idle machine: docs/performance.md's figures come from
# it.
#   [BASELINE=<commit>] tools/bench/issue12.sh [LOG]          (default /tmp/xeanalyzer-issue12-<UTC time>.log)
# batch has no baseline: it compares --jobs 2 with --jobs 1 of the current code.
# Data folders (generated on first use, reused after): /tmp/xebench (reader and analyses), /tmp/xebench-stacks (stacks
# and report), /tmp/xebench-batch (batch), /tmp/bigpdb (symbolizer: tools/bigpdb/make.sh), /tmp/xeresolve (resolve).
set -euo pipefail
cd "$(dirname "$0")/../.."
log="${1:-/tmp/xeanalyzer-issue12-$(date -u +%Y%m%dT%H%M%SZ).log}"
dotnet build XeAnalyzer.sln -c Release -v q -nologo 2>&1 | grep -E " error |rror\(s\)" || true
B() { dotnet XeAnalyzer.Benchmarks/bin/Release/net10.0/XeAnalyzer.Benchmarks.dll "$@"; }
baseline=()
if [ -n "${BASELINE:-}" ]; then baseline=(--baseline "$BASELINE"); fi
# Read the existing inputs once, so no benchmark's first round pays for a cold page cache.
cat /tmp/xebench/*.xel /tmp/xebench-stacks/*.xel /tmp/bigpdb/big.* /tmp/xeresolve/*.txt /tmp/xeresolve/*.xml \
  > /dev/null 2>&1 || true
{
  echo "commit $(git rev-parse --short HEAD), baseline ${BASELINE:-380d976}, $(date -u +%FT%TZ)," \
    "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
  echo "== B xel";        B xel --size-gb 1 --small-gb 0.25 --rounds 5 --dir /tmp/xebench "${baseline[@]}"
  echo "== B analysis";   B analysis --size-gb 1 --small-gb 0.25 --rounds 5 --dir /tmp/xebench "${baseline[@]}"
  echo "== B stacks";     B stacks --size-gb 1 --small-gb 0.25 --rounds 5 --dir /tmp/xebench-stacks "${baseline[@]}"
  echo "== B report";     B report --size-gb 1 --small-gb 0.25 --rounds 5 --dir /tmp/xebench-stacks \
                            --analysis-dir /tmp/xebench "${baseline[@]}"
  echo "== B batch";      B batch --captures 100 --repeat 9 --dir /tmp/xebench-batch
  echo "== B symbolizer"; B symbolizer --dir /tmp/bigpdb --runs 3 "${baseline[@]}"
  echo "== B resolve";    B resolve --dir /tmp/xeresolve --shapes text,va,histogram --runs 5 "${baseline[@]}"
  echo "done $(date -u +%FT%TZ), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$log"
