#!/usr/bin/env python3
"""Regenerates XeAnalyzer's embedded SQL Server build catalog from the published sqlbuildinfo.json.

sqlbuildinfo.json (one JSON object per line: ProductMajorVersion, ProductLevel, Label, BuildNumber, KBInfo, MachineType
and SymbolDetails[] of PDBName, DownloadURL, DownloadVerified, FileVersion) is published with
microsoft/SQLCallStackResolver under the MIT licence. This script keeps its facts and drops what can be rebuilt: every
DownloadURL is https://msdl.microsoft.com/download/symbols/<PDBName>.pdb/<guid><age>/<PDBName>.pdb, so only the PDB name
and the key are stored (the script refuses any entry that does not follow that pattern, or a value holding a tab or a
line break). The result is a tab-separated text, gzip-compressed, embedded in the library:

    #xeanalyzer-sqlbuildinfo <TAB> 1 <TAB> <sha256 of the source file> <TAB> <builds> <TAB> <pdbs>
    B <TAB> ProductMajorVersion <TAB> ProductLevel <TAB> Label <TAB> BuildNumber <TAB> KBInfo <TAB> MachineType
    P <TAB> PDBName <TAB> key (32 hex GUID digits and the hex age, as in the URL) <TAB> DownloadVerified (1/0)
      <TAB> FileVersion

one B line per build in file order, each followed by its P lines in order.

    tools/catalog/make-catalog.py [SOURCE]           write XeAnalyzer/Symbols/Catalog/sqlbuildinfo.tsv.gz
    tools/catalog/make-catalog.py --check [SOURCE]   compare the committed resource's text with a fresh one
                                                     (exit 1 if they differ)

SOURCE defaults to ../shared/vectors/buildinfo/sqlbuildinfo.json beside the checkout (or
$XEANALYZER_VECTORS/buildinfo/...); without it the script exits 3 (nothing to compare). The gzip stream has no name and
no timestamp.
"""

import gzip
import hashlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
TARGET = os.path.join(REPO, "XeAnalyzer", "Symbols", "Catalog", "sqlbuildinfo.tsv.gz")
URL = re.compile(r"^https://msdl\.microsoft\.com/download/symbols/"
                 r"([^/]+)\.pdb/([0-9a-f]{32}[0-9a-f]{1,8})/([^/]+)\.pdb$")
BUILD_FIELDS = ["ProductMajorVersion", "ProductLevel", "Label", "BuildNumber", "KBInfo", "MachineType"]


def default_source():
    env = os.environ.get("XEANALYZER_VECTORS")
    root = env if env and os.path.isdir(env) else os.path.join(REPO, "..", "shared", "vectors")
    return os.path.join(root, "buildinfo", "sqlbuildinfo.json")


def field(obj, name, where):
    value = obj.get(name)
    if not isinstance(value, str):
        raise SystemExit(f"{where}: expected a string {name}, found {value!r}")
    if "\t" in value or "\n" in value or "\r" in value:
        raise SystemExit(f"{where}: {name} holds a tab or line break: {value!r}")
    return value


def generate(source):
    with open(source, "rb") as f:
        raw = f.read()
    rows = []
    builds = pdbs = 0
    for number, line in enumerate(raw.decode("utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        obj = json.loads(line)
        rows.append("\t".join(["B"] + [field(obj, k, where) for k in BUILD_FIELDS]))
        builds += 1
        for d in obj["SymbolDetails"]:
            name = field(d, "PDBName", where)
            url = field(d, "DownloadURL", where)
            m = URL.match(url)
            if not m or m.group(1) != name or m.group(3) != name:
                raise SystemExit(f"{where}: DownloadURL {url} is not "
                                 f"https://msdl.microsoft.com/download/symbols/{name}.pdb/<key>/{name}.pdb")
            verified = d.get("DownloadVerified")
            if not isinstance(verified, bool):
                raise SystemExit(f"{where}: expected DownloadVerified true or false, found {verified!r}")
            rows.append("\t".join(["P", name, m.group(2), "1" if verified else "0", field(d, "FileVersion", where)]))
            pdbs += 1
    header = "\t".join(["#xeanalyzer-sqlbuildinfo", "1", hashlib.sha256(raw).hexdigest(), str(builds), str(pdbs)])
    return header + "\n" + "\n".join(rows) + "\n", builds, pdbs


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    source = args[0] if args else default_source()
    if not os.path.isfile(source):
        print(f"catalog: {source} not found; nothing to generate or compare", file=sys.stderr)
        return 3
    text, builds, pdbs = generate(source)
    if check:
        with gzip.open(TARGET, "rb") as f:
            committed = f.read().decode("utf-8")
        if committed != text:
            print(f"catalog: {os.path.relpath(TARGET, REPO)} differs from {source}; run tools/catalog/make-catalog.py",
                  file=sys.stderr)
            return 1
        print(f"catalog: the embedded catalog matches {source} ({builds} builds, {pdbs} PDBs)")
        return 0
    data = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    with open(TARGET, "wb") as f:
        f.write(data)
    print(f"catalog: wrote {os.path.relpath(TARGET, REPO)}: {builds} builds, {pdbs} PDBs, {len(data)} bytes "
          f"(source {os.path.getsize(source)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
