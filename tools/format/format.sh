#!/usr/bin/env bash
# Formats every C# file to the project's style and 120-column limit: CSharpier (MIT; .csharpierrc.yaml) lays out the
# code, then wrap-long-lines.py wraps the comments and string literals CSharpier leaves long.
#   tools/format/format.sh           format in place
#   tools/format/format.sh --check   change nothing; exit 1 and list what is not formatted or over 120 columns
# Only C# files are formatted: CSharpier would also lay out XML (test data, project files), which must stay as written.
# Every other text file (scripts, project files, Markdown, ...) is wrapped by hand and only checked, by --check:
# check-line-length.py lists its lines over 120 characters, except in the data files its EXEMPT list names.
# CSharpier is installed as a local tool into /tmp/xeanalyzer-csharpier on first use (version pinned below).
set -euo pipefail
cd "$(dirname "$0")/../.."
version=1.3.0
tool=/tmp/xeanalyzer-csharpier
if [ ! -x "$tool/csharpier" ] || [ "$("$tool/csharpier" --version 2>/dev/null)" != "$version" ]; then
  dotnet tool install csharpier --version "$version" --tool-path "$tool" >/dev/null
fi
# Tracked and new (untracked, not ignored) files: a file not yet added is checked by CI once it is.
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cs')
if [ "${1:-}" = "--check" ]; then
  status=0
  log=/tmp/xeanalyzer-csharpier-check.log
  "$tool/csharpier" check "${files[@]}" >"$log" 2>&1 \
    || { status=1; grep -m 20 -i "error\|was not formatted" "$log" || true; }
  python3 tools/format/wrap-long-lines.py --check "${files[@]}" || status=1
  mapfile -t text_files < <(git ls-files --cached --others --exclude-standard)
  python3 tools/format/check-line-length.py "${text_files[@]}" || status=1
  exit $status
fi
# Twice: CSharpier lays out the literals the first wrap splits, and the second wrap finds nothing left to do.
for _ in 1 2; do
  "$tool/csharpier" format "${files[@]}" >/dev/null
  python3 tools/format/wrap-long-lines.py "${files[@]}"
done
