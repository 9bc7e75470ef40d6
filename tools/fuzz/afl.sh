#!/usr/bin/env bash
# Coverage-guided fuzzing of one input format with AFL++ (Debian's afl++) and SharpFuzz, for long local runs:
#   tools/fuzz/afl.sh TARGET [SECONDS] [OUT]      TARGET: xel | pdb | pe | cab | xml | text
# Publishes XeAnalyzer.Fuzz to artifacts/afl/bin, instruments XeAnalyzer.dll and xeanalyze.dll there with the SharpFuzz
# tool (installed into artifacts/afl/tools), writes the target's seed inputs, and runs afl-fuzz for SECONDS (default
# 600). Crashes AFL finds are inputs the harness rejected (an internal error, an exception outside XeFormatException,
# unbounded allocation); replay one with
#   dotnet artifacts/afl/bin/XeAnalyzer.Fuzz.dll --replay DIR_NAMED_AFTER_THE_TARGET
# (copy the crash file to e.g. /tmp/f/pdb/<seed-name>.crash1.bin first: the folder names the target, the prefix the
# seed).
set -euo pipefail
target="${1:?usage: tools/fuzz/afl.sh xel|pdb|pe|cab|xml|text [SECONDS] [OUT]}"
seconds="${2:-600}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${3:-$root/artifacts/afl/out-$target}"
pub="$root/artifacts/afl/bin"
tools="$root/artifacts/afl/tools"
command -v afl-fuzz >/dev/null || { echo "afl-fuzz not found: apt-get install afl++"; exit 2; }
rm -rf "$pub"
dotnet publish "$root/XeAnalyzer.Fuzz" -c Release -o "$pub" >/dev/null
seeds="$root/artifacts/afl/seeds-$target"
rm -rf "$seeds"
# Before instrumenting: instrumented code runs only under afl-fuzz.
dotnet "$pub/XeAnalyzer.Fuzz.dll" --target "$target" --write-seeds "$seeds"
[ -x "$tools/sharpfuzz" ] || dotnet tool install --tool-path "$tools" SharpFuzz.CommandLine --version 2.3.0 >/dev/null
for dll in XeAnalyzer.dll xeanalyze.dll; do "$tools/sharpfuzz" "$pub/$dll"; done
export AFL_SKIP_BIN_CHECK=1 AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
afl-fuzz -i "$seeds" -o "$out" -V "$seconds" -t 20000 -m none -- dotnet "$pub/XeAnalyzer.Fuzz.dll" --afl "$target"
echo "afl: results in $out (crashes in $out/default/crashes)"
