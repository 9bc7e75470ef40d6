#!/usr/bin/env bash
# Packs the XeAnalyzer library and the xeanalyze tool, the library validated against its last shipped version
# (baseline.txt), installs the tool from the local folder into a temporary tool path and runs it on a committed sample,
# then builds fresh consumer projects (tools/packaging/consumer and the examples of the README, the package page and
# docs/library.md) that reference the packed library from a local feed, and runs them. Exit 0 only if all of that works.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
version="$(sed -n 's:.*<Version>\(.*\)</Version>.*:\1:p' "$repo/Directory.Build.props" | head -n 1)"
feed="$work/feed"

# Package validation compares the library with the last shipped version, packed from the commit that shipped it
# (tools/packaging/baseline.txt): removing or changing a shipped public member fails the pack.
baseline_file="$repo/tools/packaging/baseline.txt"
baseline_version="$(sed -n 's/^version *//p' "$baseline_file")"
baseline_commit="$(sed -n 's/^commit *//p' "$baseline_file")"
[ -n "$baseline_version" ] && [ -n "$baseline_commit" ] \
  || { echo "packaging: $baseline_file must name a version and a commit"; exit 1; }
git -C "$repo" cat-file -e "$baseline_commit^{commit}" 2>/dev/null \
  || { echo "packaging: baseline commit $baseline_commit ($baseline_file) is not in this repository"; exit 1; }
echo "packaging: packing the shipped library $baseline_version from $baseline_commit"
git -C "$repo" worktree add --detach "$work/baseline-src" "$baseline_commit" >"$work/baseline.log" 2>&1 \
  || { cat "$work/baseline.log"; exit 1; }
trap 'git -C "$repo" worktree remove --force "$work/baseline-src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
dotnet pack "$work/baseline-src/XeAnalyzer/XeAnalyzer.csproj" -c Release -o "$work/baseline" \
  -p:Version="$baseline_version" >>"$work/baseline.log" 2>&1 || { tail -n 30 "$work/baseline.log"; exit 1; }
baseline_package="$work/baseline/XeAnalyzer.$baseline_version.nupkg"
[ -f "$baseline_package" ] || { echo "packaging: no $baseline_package"; ls "$work/baseline"; exit 1; }

echo "packaging: dotnet pack (version $version), validated against $baseline_version"
dotnet pack "$repo/XeAnalyzer.sln" -c Release -o "$feed" -p:ContinuousIntegrationBuild=true \
  -p:PackageValidationBaselinePath="$baseline_package" >"$work/pack.log" 2>&1 \
  || { grep -E 'error (CP|PKV)[0-9]+' "$work/pack.log" | sort -u; tail -n 30 "$work/pack.log"; exit 1; }
for p in "XeAnalyzer.$version.nupkg" "XeAnalyzer.$version.snupkg" "XeAnalyzer.Cli.$version.nupkg"; do
  [ -f "$feed/$p" ] || { echo "packaging: missing $p"; ls "$feed"; exit 1; }
done
# The library package must carry its XML docs, README and licence expression.
listing="$(unzip -l "$feed/XeAnalyzer.$version.nupkg")"
nuspec="$(unzip -p "$feed/XeAnalyzer.$version.nupkg" XeAnalyzer.nuspec)"
grep -q 'lib/net10.0/XeAnalyzer.xml' <<<"$listing" || { echo "packaging: no XML docs in the library package"; exit 1; }
grep -q '<license type="expression">MIT</license>' <<<"$nuspec" \
  || { echo "packaging: no licence in the library package"; exit 1; }
# Each package's page is its own PACKAGE.md (packed as README.md), which must say how to install that package.
package_readme() { # nupkg, nuspec name, source file, install line
  unzip -p "$1" "$2" >"$work/readme.nuspec" || { echo "packaging: no $2 in $1"; exit 1; }
  grep -q '<readme>README.md</readme>' "$work/readme.nuspec" || { echo "packaging: $1 names no README.md"; exit 1; }
  unzip -p "$1" README.md >"$work/readme.packed" && cmp -s "$work/readme.packed" "$3" \
    || { echo "packaging: the README.md in $1 is not $3"; exit 1; }
  grep -qF "$4" "$3" || { echo "packaging: $3 does not say '$4'"; exit 1; }
}
package_readme "$feed/XeAnalyzer.$version.nupkg" XeAnalyzer.nuspec "$repo/XeAnalyzer/PACKAGE.md" \
  'dotnet add package XeAnalyzer'
package_readme "$feed/XeAnalyzer.Cli.$version.nupkg" XeAnalyzer.Cli.nuspec "$repo/XeAnalyzer.Cli/PACKAGE.md" \
  'dotnet tool install --global XeAnalyzer.Cli'

# Both packages name the repository and the commit they were built from, and the library's symbol package maps its
# sources there (Source Link: the source_link JSON of the portable PDB, stored as plain UTF-8), whatever the remote.
url="$(sed -n 's:.*<RepositoryUrl>\(.*\)</RepositoryUrl>.*:\1:p' "$repo/Directory.Build.props" | head -n 1)"
commit="$(git -C "$repo" rev-parse HEAD)"
[ -n "$url" ] || { echo "packaging: no RepositoryUrl in Directory.Build.props"; exit 1; }
for p in XeAnalyzer XeAnalyzer.Cli; do
  repository="$(unzip -p "$feed/$p.$version.nupkg" "$p.nuspec" | grep -o '<repository [^>]*>' || true)"
  for attribute in 'type="git"' "url=\"$url\"" "commit=\"$commit\""; do
    grep -qF "$attribute" <<<"$repository" \
      || { echo "packaging: $p's nuspec lacks $attribute in its repository element: ${repository:-none}"; exit 1; }
  done
done
sourcelink="$(unzip -p "$feed/XeAnalyzer.$version.snupkg" lib/net10.0/XeAnalyzer.pdb \
  | grep -ao '{"documents":{[^}]*}}' || true)"
raw="${url/https:\/\/github.com\//https://raw.githubusercontent.com/}/$commit/*"
grep -qF "\"$raw\"" <<<"$sourcelink" \
  || { echo "packaging: the PDB's Source Link does not map to $raw: ${sourcelink:-none}"; exit 1; }
echo "packaging: nuspecs name $url at $commit; the PDB's Source Link maps to it"

echo "packaging: installing the tool from the local folder"
# A private package cache, so the freshly packed version is used rather than one cached by an earlier run.
export NUGET_PACKAGES="$work/nuget-packages"
dotnet tool install --tool-path "$work/tools" --add-source "$feed" XeAnalyzer.Cli --version "$version" \
  >"$work/tool.log" 2>&1 \
  || { cat "$work/tool.log"; exit 1; }
"$work/tools/xeanalyze" info "$repo/sample-xel/latch_nesting_full" >"$work/info.txt"
grep -q 'sqlserver.latch_acquired *6043' "$work/info.txt" \
  || { echo "packaging: installed tool gave unexpected output:"; cat "$work/info.txt"; exit 1; }
echo "packaging: installed xeanalyze ran on the latch sample"

echo "packaging: building a fresh consumer of the packed library"
mkdir -p "$work/consumer"
cp "$repo/tools/packaging/consumer/Consumer.csproj" "$repo/tools/packaging/consumer/Program.cs" "$work/consumer/"
cat >"$work/consumer/nuget.config" <<CFG
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="local" value="$feed" />
  </packageSources>
</configuration>
CFG
# The consumer lives outside the repository, so none of the repository's build settings apply to it.
( cd "$work/consumer" && dotnet run -c Release -p:XeAnalyzerVersion="$version" \
  -- "$repo/sample-xel/latch_nesting_full" "$repo/symbols-cache" ) >"$work/consumer.txt" 2>"$work/consumer.err" \
  || { cat "$work/consumer.err" "$work/consumer.txt"; exit 1; }
# Scheduler 27 is the sample's busy scheduler (about 10% fewer acquires); bucket 1 is the seed's PFS stack A.
bucket_a=$'bucket 1\t2005\tsqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9\t'
bucket_a+='sqlmin.dll!PFSPageRef::ModifyPFSRow+0x68b'
grep -q $'scheduler 27\t688\t.*\toutlier' "$work/consumer.txt" && grep -q "$bucket_a" "$work/consumer.txt" \
  || { echo "packaging: consumer gave unexpected output:"; cat "$work/consumer.txt" "$work/consumer.err"; exit 1; }
echo "packaging: consumer project built against the packed library and ran the latch and stack analyses on the sample"

echo "packaging: building and running the README's library example against the packed library"
mkdir -p "$work/readme-example"
cp "$repo/tools/packaging/consumer/Consumer.csproj" "$work/consumer/nuget.config" "$work/readme-example/"
# The first csharp block after the heading "## Using the library", verbatim.
awk '/^## Using the library/{s=1} s&&/^```csharp/{c=1;next} c&&/^```/{exit} c{print}' "$repo/README.md" \
  >"$work/readme-example/Program.cs"
[ -s "$work/readme-example/Program.cs" ] \
  || { echo "packaging: no csharp block under '## Using the library' in README.md"; exit 1; }
# Run from the repository root: the example names sample-xel/ and symbols-cache/ relative to it.
( cd "$repo" && dotnet run --project "$work/readme-example/Consumer.csproj" -c Release \
  -p:XeAnalyzerVersion="$version" ) >"$work/readme.txt" 2>"$work/readme.err" \
  || { cat "$work/readme.err" "$work/readme.txt"; exit 1; }
grep -q '^scheduler 27: 688 acquires' "$work/readme.txt" \
  && grep -q '^2005 events: sqlmin.dll!XeSqlPkg::latch_acquired::Publish+0x1a9' "$work/readme.txt" \
  || { echo "packaging: the README example gave unexpected output:"
       cat "$work/readme.txt" "$work/readme.err"; exit 1; }
echo "packaging: the README's library example compiled against the packed library and ran on the sample"

echo "packaging: building and running the library package page's example against the packed library"
mkdir -p "$work/package-example"
cp "$repo/tools/packaging/consumer/Consumer.csproj" "$work/consumer/nuget.config" "$work/package-example/"
# The first csharp block of XeAnalyzer/PACKAGE.md, verbatim; it reads the captures named on its command line.
awk '/^```csharp/{c=1;next} c&&/^```/{exit} c{print}' "$repo/XeAnalyzer/PACKAGE.md" >"$work/package-example/Program.cs"
[ -s "$work/package-example/Program.cs" ] || { echo "packaging: no csharp block in XeAnalyzer/PACKAGE.md"; exit 1; }
( cd "$work/package-example" \
  && dotnet run -c Release -p:XeAnalyzerVersion="$version" -- "$repo/sample-xel/latch_nesting_full" ) \
  >"$work/package.txt" 2>"$work/package.err" || { cat "$work/package.err" "$work/package.txt"; exit 1; }
# Scheduler 27, the sample's busy scheduler, is the one outlier.
grep -q '^scheduler 27: 688 acquires (outlier)$' "$work/package.txt" \
  || { echo "packaging: the package page's example gave unexpected output:"; cat "$work/package.txt" "$work/package.err"
       exit 1; }
echo "packaging: the library package page's example compiled against the packed library and ran on the sample"

echo "packaging: building and running the library guide's example against the packed library"
mkdir -p "$work/guide-example"
cp "$repo/tools/packaging/consumer/Consumer.csproj" "$work/consumer/nuget.config" "$work/guide-example/"
# The first csharp block after the heading "## Example: two analyses" of docs/library.md, and the text block after it,
# the output it must print, both verbatim.
guide_block() {
  awk -v kind="$1" '/^## Example: two analyses/{s=1} s&&$0=="```"kind{c=1;next} c&&/^```/{exit} c{print}' \
    "$repo/docs/library.md"
}
guide_block csharp >"$work/guide-example/Program.cs"
guide_block text >"$work/guide.expected"
[ -s "$work/guide-example/Program.cs" ] && [ -s "$work/guide.expected" ] \
  || { echo "packaging: no csharp and text blocks under '## Example: two analyses' in docs/library.md"; exit 1; }
( cd "$repo" \
  && dotnet run --project "$work/guide-example/Consumer.csproj" -c Release -p:XeAnalyzerVersion="$version" ) \
  >"$work/guide.txt" 2>"$work/guide.err" || { cat "$work/guide.err" "$work/guide.txt"; exit 1; }
diff -u "$work/guide.expected" "$work/guide.txt" \
  || { echo "packaging: the library guide's example printed other output than docs/library.md shows"; exit 1; }
echo "packaging: the library guide's example compiled against the packed library and printed the documented output"
