#!/usr/bin/env bash
# Records LLVM's view of the shared PE vectors (../shared/vectors/pdb, never copied into the repository) as test
# oracles:
#   <image>.readobj.txt    llvm-readobj-14 --file-headers --sections --coff-debug-directory --coff-exports <image>
#   <image>.objdump-p.txt  llvm-objdump-14 -p <image>
# The first line of each file names the command; "File:" lines and the file-name header are written without the folder.
# Tests parse these files; when llvm-readobj-14 is installed they also re-run it and check that the record is still
# accurate.
# Usage: record.sh [vectors-folder]   (default: ../shared/vectors beside the repository)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
vectors="${1:-$here/../../../../shared/vectors}/pdb"
readobj_options=(--file-headers --sections --coff-debug-directory --coff-exports)
for image in basic32-min.dll dump_syms_regtest64.exe CrashWithException.exe; do
  { echo "# llvm-readobj-14 ${readobj_options[*]} $image";
    (cd "$vectors" && llvm-readobj-14 "${readobj_options[@]}" "$image"); } > "$here/$image.readobj.txt"
  { echo "# llvm-objdump-14 -p $image";
    (cd "$vectors" && llvm-objdump-14 -p "$image"); } > "$here/$image.objdump-p.txt"
done
echo "recorded $(ls "$here"/*.txt | wc -l) files in $here"
