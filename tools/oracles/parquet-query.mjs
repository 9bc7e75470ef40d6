// Test oracle: DuckDB reads Parquet files written by XeAnalyzer, independently of our own code.
// Usage: node parquet-query.mjs <file-or-glob|-> <sql> [<sql> ...]
//   The file (unless "-") is available to the SQL as the view `t` (read_parquet(<file>)).
//   Prints one JSON line per SQL statement: {"columns":[...],"types":[...],"rows":[[...],...]}
//   Values use DuckDB's JSON forms: BIGINT/UBIGINT/HUGEINT and timestamps as strings, lists as arrays, NULL as null.
// Exit code 0 on success; 1 with the DuckDB error on stderr otherwise.
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
if (args.length < 2) {
  process.stderr.write('usage: node parquet-query.mjs <file-or-glob|-> <sql> [<sql> ...]\n');
  process.exit(2);
}

const [file, ...statements] = args;
try {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  if (file !== '-') {
    const quoted = "'" + file.replaceAll("'", "''") + "'";
    await connection.run(`CREATE VIEW t AS SELECT * FROM read_parquet(${quoted})`);
  }
  for (const sql of statements) {
    const reader = await connection.runAndReadAll(sql);
    const out = {
      columns: reader.columnNames(),
      types: reader.columnTypes().map((t) => t.toString()),
      rows: reader.getRowsJson(),
    };
    process.stdout.write(JSON.stringify(out) + '\n');
  }
  connection.closeSync();
} catch (e) {
  process.stderr.write(`duckdb error: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
}
