#!/usr/bin/env python3
"""Lists every line over the limit (120 characters, not bytes) in the text files given, except C# and data.

Scripts, project files, Markdown and other hand-written text are wrapped by hand; this only checks them. C# is laid
out and checked by format.sh and wrap-long-lines.py. A file whose bytes are data or output is exempt: EXEMPT below is
the one list of them, each entry with its reason. Binary files (a NUL byte in the first 8000, as git decides) are
skipped; a text file that is not UTF-8 is an error.
    tools/format/check-line-length.py [--limit 120] FILE...
Paths are relative to the repository root (format.sh --check passes every tracked and new file). Prints
`file:line: N characters` for each long line and exits 1 if there is one.
"""
import fnmatch
import os
import sys

# (pattern, reason): fnmatch patterns on the path from the repository root, where `*` also matches `/`. Later entries
# win; a pattern starting with `!` checks files an earlier entry exempts.
EXEMPT = [
    ("*.cs", "C#: checked by wrap-long-lines.py, which treats raw string literals as data"),
    ("*.tsv", "data tables and expected outputs, compared byte for byte"),
    ("*.csv", "data tables and expected outputs, compared byte for byte"),
    ("*.xml", "target data, test inputs and expected outputs"),
    ("*.json", "data written by tools: test inputs, expected outputs, npm lock files"),
    ("*.svg", "rendered charts (goldens)"),
    ("*.html", "rendered reports (goldens)"),
    ("*.txt", "goldens, expected tool outputs and the PublicAPI files the analyzer maintains"),
    ("*.xel", "captures"),
    ("*.sln", "written by dotnet sln; a Project line has no continuation"),
    ("XeAnalyzer.Tests/TestData/*", "test inputs and goldens, compared byte for byte"),
    ("!XeAnalyzer.Tests/TestData/*.sh", "the scripts that build test data are code"),
    ("!XeAnalyzer.Tests/TestData/*.md", "the notes beside test data are docs"),
    ("tools/fixtures/expected/*", "what independent tools say about the fixtures"),
    ("sample-xel/expected/*", "the samples' expected figures and stacks"),
    ("tools/fixtures/src/*.cpp", "compiled into the fixture PDBs, whose line numbers tests compare"),
    ("XeAnalyzer/Sql/Queries/*.sql", "printed verbatim by xeanalyze sql show (golden sql-show.txt); headers are lines"),
]


def exempt(path: str) -> bool:
    result = False
    for pattern, _ in EXEMPT:
        negated = pattern.startswith("!")
        if fnmatch.fnmatchcase(path, pattern.lstrip("!")):
            result = not negated
    return result


def main(argv) -> int:
    limit = 120
    if len(argv) >= 2 and argv[0] == "--limit":
        limit = int(argv[1])
        argv = argv[2:]
    status = 0
    for path in argv:
        if exempt(path) or not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data[:8000]:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"{path}: not UTF-8 text (byte {e.start}); if it is data, add it to EXEMPT in "
                  "tools/format/check-line-length.py", file=sys.stderr)
            status = 1
            continue
        for number, line in enumerate(text.split("\n"), 1):
            length = len(line.rstrip("\r"))
            if length > limit:
                print(f"{path}:{number}: {length} characters (limit {limit})")
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
