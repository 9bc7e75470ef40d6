// dt-sql-parser's ES modules import relative paths without ".js" (written for bundlers); Node's ESM loader needs the
// file name. This resolve hook adds ".js", or "/index.js" for a folder, to such imports inside dt-sql-parser only.
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export async function resolve(specifier, context, nextResolve) {
  const relative = specifier.startsWith('./') || specifier.startsWith('../');
  if (relative && context.parentURL && context.parentURL.includes('/node_modules/dt-sql-parser/')) {
    const url = new URL(specifier, context.parentURL);
    const path = fileURLToPath(url);
    if (existsSync(path + '.js')) {
      return nextResolve(url.href + '.js', context);
    }
    if (existsSync(path) && statSync(path).isDirectory()) {
      return nextResolve(url.href + '/index.js', context);
    }
  }
  return nextResolve(specifier, context);
}
