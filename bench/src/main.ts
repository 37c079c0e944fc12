// Runs every `*.bench.js` module beside this file (each exports `run(): Promise<void>`),
// or only those whose name contains one of the command-line filters.
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const directory = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const modules = readdirSync(directory)
  .filter((name) => name.endsWith('.bench.js'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();
for (const name of modules) {
  console.log(`\n## ${name.replace(/\.bench\.js$/, '')}`);
  const module = (await import(`./${name}`)) as { run(): Promise<void> };
  await module.run();
}
if (modules.length === 0) console.log('no benchmarks matched');
