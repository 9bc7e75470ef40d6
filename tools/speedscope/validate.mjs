// Validates speedscope files against the file-format schema shipped in the speedscope package
// (dist/release/file-format-schema.json, JSON Schema draft-07) with Ajv. Usage: node validate.mjs FILE...
// Prints one line per file, "valid FILE" or "invalid FILE: <Ajv's errors as JSON>"; exits 0 when every file is valid,
// 1 when one is not, 2 when the schema or a file cannot be read.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Ajv = require('ajv');
const schemaPath = require.resolve('speedscope/package.json')
  .replace(/package\.json$/, 'dist/release/file-format-schema.json');

let validate;
try {
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
  validate = new Ajv({ allErrors: true }).compile(schema); // allErrors: report every violation, not the first
} catch (e) {
  console.error(`cannot load the speedscope schema ${schemaPath}: ${e.message}`);
  process.exit(2);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate.mjs FILE...');
  process.exit(2);
}

let invalid = 0;
for (const file of files) {
  let data;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`cannot read ${file}: ${e.message}`);
    process.exit(2);
  }
  if (validate(data)) {
    console.log(`valid ${file}`);
  } else {
    invalid++;
    console.log(`invalid ${file}: ${JSON.stringify(validate.errors)}`);
  }
}
process.exit(invalid === 0 ? 0 : 1);
