// `npm run bench [-- --runs N] [name-filter ...]`: runs every benchmark (or
// those whose name contains a filter), each in its own process, N times
// (default 3; 1 for a filtered run, so one benchmark is quick to look at).
// Unfiltered, it writes bench/results/latest.json and latest.md; filtered, it
// only prints. `main.js --child <name> <file>` is one such process: it runs
// the benchmark and writes what it gave to the file.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BENCH_DIRECTORY, benchmarkNames, printResult, runBenchmarkHere, runInProcesses } from './harness.js';
import { describeEnvironment, targetTally, writeReport, type BenchReport } from './report.js';

const DEFAULT_RUNS = 3;
const argv = process.argv.slice(2);

if (argv[0] === '--child') {
  const [, name, file] = argv;
  if (name === undefined || file === undefined) throw new TypeError('usage: main.js --child <benchmark> <result file>');
  const run = await runBenchmarkHere(name);
  if (run.result) printResult(run.result);
  if (run.error) console.log(`FAILED: ${run.error}`);
  console.log(`(${run.durationSeconds.toFixed(1)} s, load average at the start ${run.loadAverage.join(' / ')})`);
  writeFileSync(file, JSON.stringify(run));
} else {
  const runsAt = argv.indexOf('--runs');
  const filters = runsAt < 0 ? argv : [...argv.slice(0, runsAt), ...argv.slice(runsAt + 2)];
  const runs = runsAt < 0 ? (filters.length === 0 ? DEFAULT_RUNS : 1) : Number(argv[runsAt + 1]);
  if (!Number.isInteger(runs) || runs < 1) throw new TypeError(`--runs takes a whole number of runs from 1, got ${argv[runsAt + 1]}`);
  const repositoryRoot = resolve(BENCH_DIRECTORY, '..', '..');
  const environment = describeEnvironment(repositoryRoot);
  const names = benchmarkNames(filters);
  if (names.length === 0) console.log('no benchmarks matched');
  const benchmarks = runInProcesses({ names, runs, onRun: (name, run) => console.log(`\n## ${name} (run ${run + 1} of ${runs})`) });
  const report: BenchReport = { format: 'strata.bench-report', version: 2, runs, ...environment, benchmarks };
  console.log(`\n# merged over ${runs} run${runs === 1 ? '' : 's'}`);
  for (const entry of benchmarks) {
    console.log(`\n## ${entry.name}`);
    if (entry.result) printResult(entry.result);
    if (entry.error) console.log(`FAILED: ${entry.error}`);
  }
  const tally = targetTally(report);
  console.log(`\n${tally.metOnAll} of ${tally.total} targets met on all ${runs} runs (each run alone: ${tally.metPerRun.join(', ')})`);
  if (filters.length === 0) {
    const directory = join(repositoryRoot, 'bench', 'results');
    writeReport(report, directory);
    console.log(`wrote ${join(directory, 'latest.json')} and latest.md`);
  } else {
    console.log('filtered run: bench/results/latest.* left as they were');
  }
  if (benchmarks.some((entry) => entry.error !== undefined)) process.exitCode = 1;
}
