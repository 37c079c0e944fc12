// `npm run bench [-- name-filter ...]`: runs every benchmark (or those whose name contains a filter).
// Unfiltered, it writes bench/results/latest.json and latest.md; filtered, it only prints.
import { join, resolve } from 'node:path';
import { BENCH_DIRECTORY, benchmarkNames, printResult, runBenchmark } from './harness.js';
import { describeEnvironment, writeReport, type BenchEntry } from './report.js';

const filters = process.argv.slice(2);
const repositoryRoot = resolve(BENCH_DIRECTORY, '..', '..');
const environment = describeEnvironment(repositoryRoot);
const names = benchmarkNames(filters);
if (names.length === 0) console.log('no benchmarks matched');
const benchmarks: BenchEntry[] = [];
for (const name of names) {
  console.log(`\n## ${name}`);
  const entry = await runBenchmark(name, { size: 'full' });
  if (entry.result) printResult(entry.result);
  if (entry.error) console.log(`FAILED: ${entry.error}`);
  console.log(`(${entry.durationSeconds.toFixed(1)} s)`);
  benchmarks.push(entry);
}
if (filters.length === 0) {
  const directory = join(repositoryRoot, 'bench', 'results');
  writeReport({ format: 'strata.bench-report', version: 1, ...environment, benchmarks }, directory);
  console.log(`\nwrote ${join(directory, 'latest.json')} and latest.md`);
} else {
  console.log('\nfiltered run: bench/results/latest.* left as they were');
}
if (benchmarks.some((entry) => entry.error !== undefined)) process.exitCode = 1;
