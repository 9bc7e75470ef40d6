#!/usr/bin/env bash
# Installs the pinned Spark SQL grammar (package-lock.json) when it is missing, then parses every shipped query with it
# (check-spark.mjs). Exit 0: every query parses; 1: a query Spark would reject; 2: the tool could not run.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v node >/dev/null 2>&1 || { echo "sqlcheck: node is not installed (Debian package nodejs, npm)"; exit 2; }
if [ ! -f "$here/node_modules/dt-sql-parser/package.json" ]; then
  (cd "$here" && npm ci --no-audit --no-fund >/tmp/sqlcheck-npm.log 2>&1) \
    || { echo "sqlcheck: npm ci failed:"; tail -20 /tmp/sqlcheck-npm.log; exit 2; }
fi
node "$here/check-spark.mjs" "$@"
