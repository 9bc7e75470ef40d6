#!/usr/bin/env bash
# Regenerates the synthetic sample captures in sample-xel/ with the library's own XelWriter (see sample-xel/README.md).
#   tools/samples/build.sh           rebuild the generator and overwrite sample-xel/
#   tools/samples/build.sh --check   generate into a temporary directory; exit 1 naming every file that differs from,
#                                    is missing from, or is not produced for sample-xel/
# Inputs: tools/fixtures/expected/stacks.tsv (frame RVAs of the committed symbols-cache DLLs),
# tools/samples/README.template.md, and the generator's own constants (fixed seeds and timestamps). Needs the .NET SDK
# only.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "usage: tools/samples/build.sh [--check]" >&2; exit 2 ;;
esac

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
project="$here/SampleGenerator/SampleGenerator.csproj"
if ! build_log=$(dotnet build "$project" -c Release -nologo -v quiet 2>&1); then
  echo "$build_log" | tail -n 30 >&2
  echo "samples: building the generator failed" >&2
  exit 3
fi
generator="$here/SampleGenerator/bin/Release/net10.0/SampleGenerator.dll"

target="$repo/sample-xel"
if [ "$check" -eq 1 ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  dotnet "$generator" "$repo" "$tmp/sample-xel"
  status=0
  # Every generated file must be committed with the same bytes, and every committed file must be generated.
  while IFS= read -r rel; do
    if [ ! -f "$target/$rel" ]; then
      echo "samples: missing from sample-xel/: $rel" >&2; status=1
    elif ! cmp -s "$tmp/sample-xel/$rel" "$target/$rel"; then
      echo "samples: differs from the generator's output: sample-xel/$rel" >&2; status=1
    fi
  done < <(cd "$tmp/sample-xel" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
  if [ -d "$target" ]; then
    while IFS= read -r rel; do
      [ -f "$tmp/sample-xel/$rel" ] || { echo "samples: not produced by the generator: sample-xel/$rel" >&2; status=1; }
    done < <(cd "$target" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
  fi
  if [ "$status" -eq 0 ]; then
    echo "samples: sample-xel/ reproduces byte for byte"
  fi
  exit "$status"
fi

# Regenerate in a temporary folder first, so a failure leaves sample-xel/ untouched.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
dotnet "$generator" "$repo" "$tmp/sample-xel"
rm -rf "$target"
cp -R "$tmp/sample-xel" "$target"
echo "samples: wrote $(cd "$target" && find . -type f | wc -l | tr -d ' ') files to sample-xel/"
