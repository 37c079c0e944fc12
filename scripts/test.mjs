// Runs every compiled test file with Node's test runner.
// Usage: node scripts/test.mjs [path-filter ...]
// Without a filter, then checks the API reports (scripts/api.mjs --check): an unrecorded change to a public surface fails.
// Test files are `*.test.js` under packages/*/dist, apps/*/dist, bench/dist and examples/dist.
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = ['packages', 'apps'].flatMap((top) =>
  existsSync(top) ? readdirSync(top).map((name) => join(top, name, 'dist')) : [],
).concat(['bench/dist', 'examples/dist']);

function walk(directory, found) {
  if (!existsSync(directory)) return found;
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) walk(path, found);
    else if (name.endsWith('.test.js')) found.push(path);
  }
  return found;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((root) => walk(root, []))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error('no test files found; run `npm run build` first');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
// The whole suite (no filter) also checks that every published package's API report matches its declarations.
const api = filters.length === 0 ? spawnSync(process.execPath, ['scripts/api.mjs', '--check'], { stdio: 'inherit' }) : { status: 0 };
process.exit(result.status === 0 ? (api.status ?? 1) : (result.status ?? 1));
