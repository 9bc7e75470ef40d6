#!/usr/bin/env bash
# Rewrites XeAnalyzer/PublicAPI.Unshipped.txt from the library's current public surface (every public type and member
# not in PublicAPI.Shipped.txt), sorted, through the PublicApiAnalyzers code fix. Run it after an intended change of the
# public API and review the diff: the build fails (RS0016/RS0017) while the files and the code disagree.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
unshipped="$repo/XeAnalyzer/PublicAPI.Unshipped.txt"
printf '#nullable enable\n' >"$unshipped"
dotnet format analyzers "$repo/XeAnalyzer/XeAnalyzer.csproj" --diagnostics RS0016 RS0037 --severity warn -v q || true
{ printf '#nullable enable\n'; grep -v '^#nullable enable$' "$unshipped" | LC_ALL=C sort -u; } >"$unshipped.tmp"
mv "$unshipped.tmp" "$unshipped"
echo "public API: $(($(wc -l <"$unshipped") - 1)) unshipped symbols in XeAnalyzer/PublicAPI.Unshipped.txt"
