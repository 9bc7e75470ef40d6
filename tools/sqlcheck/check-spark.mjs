// Parses SQL files with dt-sql-parser's Spark SQL grammar; exits 1 when any file has a syntax error, 2 on a usage or
// self-check failure. Usage: node check-spark.mjs FILE.sql... (default: XeAnalyzer/Sql/Queries/*.sql of this repo).
// Before the files, it parses queries Spark rejects (DuckDB-only syntax): the check fails unless the grammar rejects
// each, so a grammar that accepts everything cannot pass silently.
import { register } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

register('./resolve-extensionless.mjs', import.meta.url);
const { SparkSQL } = await import('dt-sql-parser');

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const spark = new SparkSQL();

// Each parses in DuckDB; none parses in Spark SQL.
const sparkInvalid = [
  ['DuckDB cast operator', 'SELECT CAST(a AS BIGINT), b::BIGINT FROM t'],
  ['DuckDB UNION BY NAME', 'SELECT a FROM t UNION ALL BY NAME SELECT b FROM u'],
  ['unclosed CTE', 'WITH x AS (SELECT a FROM t SELECT a FROM x'],
];
let selfCheckFailed = false;
for (const [what, sql] of sparkInvalid) {
  if (spark.validate(sql).length === 0) {
    console.error(`sqlcheck: SELF-CHECK FAILED: the Spark grammar accepted ${what}: ${sql}`);
    selfCheckFailed = true;
  }
}
if (selfCheckFailed) {
  process.exit(2);
}

let files = process.argv.slice(2);
if (files.length === 0) {
  const dir = join(repo, 'XeAnalyzer', 'Sql', 'Queries');
  files = readdirSync(dir).filter(f => f.endsWith('.sql')).sort().map(f => join(dir, f));
}
if (files.length === 0) {
  console.error('sqlcheck: no .sql files to check');
  process.exit(2);
}

let failed = 0;
for (const file of files) {
  const errors = spark.validate(readFileSync(file, 'utf8'));
  const name = relative(process.cwd(), file);
  if (errors.length === 0) {
    console.log(`sqlcheck: ${name}: parses as Spark SQL`);
    continue;
  }
  failed++;
  for (const e of errors) {
    console.error(`sqlcheck: ${name}:${e.startLine}:${e.startColumn}: ${e.message}`);
  }
}
console.log(`sqlcheck: ${files.length - failed} of ${files.length} files parse as Spark SQL ` +
  `(dt-sql-parser SparkSQL; ${sparkInvalid.length} Spark-invalid queries rejected first)`);
process.exit(failed === 0 ? 0 : 1);
