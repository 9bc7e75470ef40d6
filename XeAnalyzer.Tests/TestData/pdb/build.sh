#!/usr/bin/env bash
# Builds the tiny PDB-reader fixture and records the oracle outputs the tests compare against.
#
#   full/tiny.dll + full/tiny.pdb          clang -g -gcodeview: full PDB (module streams with S_GPROC32/S_LPROC32)
#   publics/tiny.dll + publics/tiny.pdb    clang -g0: publics-only PDB (no CodeView in the object, same code)
#   stripped/tiny.pdb                      publics/tiny.pdb patched to carry full/tiny.pdb's GUID, signature and ages
#                                          and the DBI "private symbols stripped" flag (0x2): the stripped twin of
#                                          full/tiny.pdb (lld has no /pdbstripped), so it matches full/tiny.dll's RSDS
#   expected/*.txt                         outputs of llvm-pdbutil-14, llvm-symbolizer-14, llvm-objdump-14 and
#                                          llvm-readobj-14 on those files (the test oracles; never our own code)
#
# Usage: build.sh           rebuild everything in place
#        build.sh --check   rebuild in a temporary folder and compare byte for byte with the committed files
# Needs: clang-14, lld-14 (lld-link-14), llvm-14 (llvm-pdbutil-14, llvm-symbolizer-14, llvm-objdump-14,
# llvm-readobj-14), perl.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
check=0
[ "${1:-}" = "--check" ] && check=1

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
out="$here"
[ $check -eq 1 ] && out="$work/out"
mkdir -p "$out/full" "$out/publics" "$out/stripped" "$out/expected"

cd "$work"
cp "$here/tiny.cpp" tiny.cpp
# -ffunction-sections puts each function in its own COMDAT section, which lld's /opt:icf needs to fold
# FoldFirst/FoldSecond.
CFLAGS=(--target=x86_64-pc-windows-msvc -O1 -fno-exceptions -fno-rtti -ffreestanding -ffile-compilation-dir=.
  -ffunction-sections)
clang-14 "${CFLAGS[@]}" -g -gcodeview -c tiny.cpp -o tiny-full.obj
clang-14 "${CFLAGS[@]}" -g0 -c tiny.cpp -o tiny-publics.obj

# FoldSecond is exported by ordinal only (NONAME); TinySleep is a forwarder; NotExported, StaticHelper and AnonHelper
# are not exported.
EXPORTS=(
  '/export:?Publish@Widget@TinyPkg@@SAHPEAXH@Z'
  '/export:??0Widget@TinyPkg@@QEAA@XZ'
  '/export:??1Widget@TinyPkg@@QEAA@XZ'
  '/export:?Poke@Widget@TinyPkg@@QEAAHH@Z'
  '/export:?Acquire@?$Spin@$0IP@$06@@SAH_K@Z'
  '/export:?AllocPage@@YAHH@Z'
  '/export:?AllocPage@@YAHHH@Z'
  '/export:?FoldFirst@@YAHH@Z'
  '/export:?FoldSecond@@YAHH@Z,@20,NONAME'
  '/export:lock_internal'
  '/export:call_all'
  '/export:TinySleep=kernel32.Sleep'
)
link() { # obj dir
  mkdir -p "$2"
  lld-link-14 /dll /noentry /nodefaultlib /machine:x64 /opt:noref /opt:icf /Brepro /pdbaltpath:tiny.pdb \
    '/pdbsourcepath:C:\src' /debug "/pdb:$2/tiny.pdb" "/out:$2/tiny.dll" "${EXPORTS[@]}" "$1"
  rm -f "$2/tiny.lib" "$2/tiny.exp"
}
link tiny-full.obj full
link tiny-publics.obj publics

# The stripped twin: write full/tiny.pdb's identity into a copy of publics/tiny.pdb through its MSF directory.
mkdir -p stripped
cp publics/tiny.pdb stripped/tiny.pdb
perl - full/tiny.pdb stripped/tiny.pdb <<'PERL'
use strict; use warnings;
sub slurp { open(my $f, '<:raw', $_[0]) or die "$_[0]: $!"; local $/; my $d = <$f>; close $f; return $d; }
sub streams { # returns (blockSize, [ [size, [blocks...]], ... ])
  my ($d) = @_;
  my ($bs, $ndir, $map) =
    (unpack('V', substr($d, 32, 4)), unpack('V', substr($d, 44, 4)), unpack('V', substr($d, 52, 4)));
  my $nblk = int(($ndir + $bs - 1) / $bs);
  my @dirblocks = unpack("V$nblk", substr($d, $map * $bs, 4 * $nblk));
  my $dir = join('', map { substr($d, $_ * $bs, $bs) } @dirblocks);
  my $n = unpack('V', $dir); my $pos = 4;
  my @sizes = unpack("V$n", substr($dir, $pos, 4 * $n)); $pos += 4 * $n;
  my @s;
  for my $sz (@sizes) {
    my $c = $sz == 0xFFFFFFFF ? 0 : int(($sz + $bs - 1) / $bs);
    push @s, [ $sz, [ unpack("V$c", substr($dir, $pos, 4 * $c)) ] ]; $pos += 4 * $c;
  }
  return ($bs, \@s);
}
sub at { my ($bs, $s, $i, $p) = @_; return $s->[$i][1][int($p / $bs)] * $bs + $p % $bs; } # file offset of stream byte
sub rd {
  my ($d, $bs, $s, $i, $p, $n) = @_;
  return join('', map { substr($$d, at($bs, $s, $i, $p + $_), 1) } 0 .. $n - 1);
}
sub wr {
  my ($d, $bs, $s, $i, $p, $v) = @_;
  substr($$d, at($bs, $s, $i, $p + $_), 1) = substr($v, $_, 1) for 0 .. length($v) - 1;
}
my $full = slurp($ARGV[0]); my $twin = slurp($ARGV[1]);
my ($fbs, $fs) = streams($full); my ($tbs, $ts) = streams($twin);
wr(\$twin, $tbs, $ts, 1, 4, rd(\$full, $fbs, $fs, 1, 4, 24));   # PDB info: Signature, Age, GUID
wr(\$twin, $tbs, $ts, 3, 8, rd(\$full, $fbs, $fs, 3, 8, 4));    # DBI age
my $flags = unpack('v', rd(\$twin, $tbs, $ts, 3, 56, 2)) | 0x2; # DBI flags: private symbols stripped
wr(\$twin, $tbs, $ts, 3, 56, pack('v', $flags));
open(my $o, '>:raw', $ARGV[1]) or die; print $o $twin; close $o;
PERL

for d in full publics stripped; do
  llvm-pdbutil-14 dump -summary -publics -section-headers -modules -symbols "$d/tiny.pdb" > "$d.pdbutil.txt"
done

# llvm-symbolizer finds tiny.pdb (the RSDS path) next to the DLL; the stripped twin is paired with full/tiny.dll.
mkdir -p pair-stripped && cp full/tiny.dll pair-stripped/tiny.dll && cp stripped/tiny.pdb pair-stripped/tiny.pdb
RVAS="0x800 0xFFF 0x1000 0x1013 0x1014 0x101F 0x1020 0x1030 0x11D9 0x1400 0x1450 0x14E0 0x1510 0x1570 0x15F0 0x1680
  0x1690 0x1710 0x17C0 0x19A0 0x19D0 0x1A5F 0x1A60 0x1AF0 0x1CC0 0x1D00 0x2000 0x3000 0x5000"
symbolize() { # dir rva: the function and location lines, tab-separated
  (cd "$1" && llvm-symbolizer-14 --obj=tiny.dll --relative-address --no-demangle "$2" | head -n 2 | paste -s -d '\t')
}
for pair in full:full publics:publics stripped:pair-stripped; do
  name="${pair%%:*}"; dir="${pair##*:}"
  { echo "# llvm-symbolizer-14 --obj=$name/tiny.dll --relative-address --no-demangle <rva>" \
      "(columns: rva, function, location)";
    for r in $RVAS; do
      printf '%s\t%s\n' "$r" "$(symbolize "$dir" "$r")"
    done; } > "$name.symbolizer.txt"
done

for d in full publics; do
  { echo "# llvm-objdump-14 -p $d/tiny.dll"; llvm-objdump-14 -p "$d/tiny.dll" | sed "s#$work/##"; } > "$d.objdump-p.txt"
  readobj_options=(--file-headers --sections --coff-debug-directory --coff-exports)
  { echo "# llvm-readobj-14 ${readobj_options[*]} $d/tiny.dll"
    llvm-readobj-14 "${readobj_options[@]}" "$d/tiny.dll" | sed "s#$work/##"; } > "$d.readobj.txt"
done

for f in full/tiny.dll full/tiny.pdb publics/tiny.dll publics/tiny.pdb stripped/tiny.pdb; do cp "$f" "$out/$f"; done
for f in *.pdbutil.txt *.symbolizer.txt *.objdump-p.txt *.readobj.txt; do cp "$f" "$out/expected/$f"; done

if [ $check -eq 1 ]; then
  status=0
  for f in full/tiny.dll full/tiny.pdb publics/tiny.dll publics/tiny.pdb stripped/tiny.pdb \
    $(cd "$out" && ls expected/*); do
    cmp -s "$out/$f" "$here/$f" || { echo "differs: XeAnalyzer.Tests/TestData/pdb/$f"; status=1; }
  done
  exit $status
fi
echo "built $(cd "$here" && ls full/* publics/* stripped/* expected/* | wc -l) files in $here"
