#!/usr/bin/env bash
# Generates a large publics-only PDB for the PDB reader's performance measurement (outputs are NOT committed).
#   tools/bigpdb/make.sh [functions=300000] [outdir=/tmp/bigpdb]
# Writes <outdir>/big.dll and <outdir>/big.pdb: N small x64 functions with SQL-Server-like long C++ names (namespaces,
# classes, templates), compiled with clang-14 -g0 (no CodeView, so the PDB has publics only) and linked with
# lld-link-14.
# Then measure:  dotnet run tools/bigpdb/measure.cs -- <outdir>/big.pdb [rva-hex]
set -euo pipefail
n="${1:-300000}"
out="${2:-/tmp/bigpdb}"
per_file=20000
mkdir -p "$out/src"
files=$(( (n + per_file - 1) / per_file ))
for ((f = 0; f < files; f++)); do
  # The long names are in variables only to keep these lines short; the generated source has them in full.
  awk -v f="$f" -v per="$per_file" -v n="$n" 'BEGIN {
    policy = "SpinlockBackoffPolicyForResourceManagerTemplate";
    spin = "SpinToAcquireWithExponentialBackoffAndYield(unsigned long long spins, void* owner)";
    allocator = "CBufferPoolPageAllocatorWithLatchCoordination";
    allocate = "AllocatePagesWithFailureModeAndDiagnostics";
    parameters = "(int pages, void* context, unsigned long long flags)";
    print "volatile int g_sink" f ";";
    print "template <int A, int B, int C> struct " policy " { static int " spin "; };";
    for (i = f * per; i < (f + 1) * per && i < n; i++) {
      ns = "SqlEnginePackageNamespace" (i % 97);
      printf "namespace %s { namespace MemoryManagementSubsystem%d { struct %s%d {\n", ns, i % 13, allocator, i;
      printf "  static int %s%d%s;\n};\n", allocate, i, parameters;
      printf "int %s%d::%s%d%s\n", allocator, i, allocate, i, parameters;
      printf "{ g_sink%d = pages + (int)flags; return pages * %d + (context != 0); }\n} }\n", f, i % 1000 + 1;
      if (i % 50 == 0) {
        printf "template <> int %s<%d, %d, 1>::%s { g_sink%d = (int)spins; return owner != 0; }\n",
          policy, i, i % 7, spin, f;
      }
    }
  }' > "$out/src/gen$f.cpp"
done
cd "$out"
CFLAGS=(--target=x86_64-pc-windows-msvc -O1 -fno-exceptions -fno-rtti -ffreestanding -ffile-compilation-dir=. -g0 -c)
ls src/gen*.cpp | xargs -P 2 -I{} sh -c 'clang-14 '"${CFLAGS[*]}"' {} -o "$(basename {} .cpp).obj"'
lld-link-14 /dll /noentry /nodefaultlib /machine:x64 /opt:noref /Brepro /pdbaltpath:big.pdb /debug /pdb:big.pdb \
  /out:big.dll gen*.obj
rm -f big.lib
ls -l big.dll big.pdb
