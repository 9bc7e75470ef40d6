#!/usr/bin/env bash
# Regenerates the symbol-store test fixtures in this folder (deterministic: /Brepro, fixed paths, fixed mtime).
#   storea.pdb / storeb.pdb : two tiny Windows x64 PDBs with different GUIDs (clang-14 + lld-link-14 /Brepro)
#   storea.pd_              : storea.pdb as a CAB with MSZIP compression (gcab -cz), as symbol servers serve '.pd_'
#                             files
# Usage: make-fixtures.sh [--check]   (--check rebuilds in a temp dir and compares byte for byte)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here"
if [ "${1:-}" = "--check" ]; then out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT; fi
work="$(mktemp -d)"; trap 'rm -rf "$work"; [ "${1:-}" = "--check" ] && rm -rf "$out"' EXIT
cd "$work"

for v in a b; do
  # The here-document is unquoted, so a backslash at the end of a line joins it with the next one: the compiled source
  # (whose line numbers are in the PDB) has that line whole.
  cat > "store$v.cpp" <<SRC
// Symbol-store fixture $v: two exported functions with enough code to give the PDB some content.
extern "C" __declspec(dllexport) int store_fixture_$v(int x) { volatile int y = x * 3; \
for (int i = 0; i < x; ++i) { y += i; } return y + 1; }
extern "C" __declspec(dllexport) int store_fixture_${v}_twice(int x) { return store_fixture_$v(x) * 2; }
namespace XeStore { struct Probe$v { int a; long long b; static int Touch(Probe$v* p) { return p->a + (int)p->b; } }; }
extern "C" __declspec(dllexport) int store_probe_$v(XeStore::Probe$v* p) { return XeStore::Probe$v::Touch(p); }
SRC
  clang-14 --target=x86_64-pc-windows-msvc -O1 -ffreestanding -fno-exceptions -fno-rtti -ffile-compilation-dir=. \
    -c -g -gcodeview "store$v.cpp" -o "store$v.obj"
  lld-link-14 /dll /noentry /nodefaultlib /machine:x64 /Brepro "/pdbaltpath:store$v.pdb" '/pdbsourcepath:C:\src' \
    /debug "/pdb:store$v.pdb" "/out:store$v.dll" "store$v.obj" >/dev/null
  cp "store$v.pdb" "$out/store$v.pdb"
done

# gcab stores the file's mtime: pin it so the CAB is reproducible.
TZ=UTC touch -d '2020-01-01 00:00:00' storea.pdb
rm -f "$out/storea.pd_"
TZ=UTC gcab -c -z -n "$out/storea.pd_" storea.pdb

if [ "${1:-}" = "--check" ]; then
  for f in storea.pdb storeb.pdb storea.pd_; do cmp "$out/$f" "$here/$f" || { echo "fixture $f differs"; exit 1; }; done
  echo "store fixtures reproduce byte for byte"
fi
