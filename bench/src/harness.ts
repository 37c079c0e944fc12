// Finds and runs the benchmarks: every `*.bench.js` module beside this file
// that exports `run`, each in its own process, as many times as asked.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchModule, BenchOptions, BenchResult } from './bench-result.js';
import { mergeRuns, type BenchRun } from './merge-runs.js';
import type { BenchEntry } from './report.js';

export const BENCH_DIRECTORY = dirname(fileURLToPath(import.meta.url));

/** Benchmark names (file names without `.bench.js`), sorted; only those containing a filter when filters are given. */
export function benchmarkNames(filters: readonly string[] = []): string[] {
  return readdirSync(BENCH_DIRECTORY)
    .filter((name) => name.endsWith('.bench.js'))
    .map((name) => name.slice(0, -'.bench.js'.length))
    .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
    .sort();
}

export async function loadBenchmark(name: string): Promise<BenchModule> {
  const module = (await import(pathToFileURL(join(BENCH_DIRECTORY, `${name}.bench.js`)).href)) as Partial<BenchModule>;
  if (typeof module.run !== 'function') throw new TypeError(`${name}.bench.js exports no run()`);
  return module as BenchModule;
}

/**
 * Runs one benchmark. What it returns is its result; a benchmark that returns
 * nothing keeps what it printed; one that throws is recorded as failed, and
 * the others still run.
 */
export async function runBenchmark(name: string, options: BenchOptions): Promise<BenchEntry> {
  const started = performance.now();
  const printed: string[] = [];
  const write = process.stdout.write;
  // Everything printed while it runs is echoed and kept, for benchmarks that print their figures.
  process.stdout.write = function capture(this: typeof process.stdout, chunk: unknown, ...rest: unknown[]) {
    printed.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof process.stdout.write;
  try {
    const result = await (await loadBenchmark(name)).run(options);
    const durationSeconds = (performance.now() - started) / 1000;
    if (result === undefined) return { name, durationSeconds, printed: printed.join('') };
    checkResult(name, result);
    return { name, durationSeconds, result };
  } catch (error) {
    return { name, durationSeconds: (performance.now() - started) / 1000, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  } finally {
    process.stdout.write = write;
  }
}

/** What one run of a benchmark in this process gives, for the process that started it. */
export async function runBenchmarkHere(name: string): Promise<BenchRun> {
  const loadAverage = loadavg().map((value) => Math.round(value * 100) / 100);
  const entry = await runBenchmark(name, { size: 'full' });
  return { durationSeconds: entry.durationSeconds, loadAverage, result: entry.result, printed: entry.printed, error: entry.error };
}

/**
 * Runs each benchmark `runs` times, each time in a fresh process
 * (`node --expose-gc main.js --child <name> <file>`): every benchmark's first
 * run, then every second one, so a change in the machine's load spreads over
 * all of them. Returns each benchmark's runs merged (`mergeRuns`), in `names`
 * order; a process that dies without writing its result is a failed run.
 */
export function runInProcesses(options: { readonly names: readonly string[]; readonly runs: number; readonly onRun?: (name: string, run: number) => void }): BenchEntry[] {
  const directory = mkdtempSync(join(tmpdir(), 'strata-bench-runs-'));
  const runs = new Map<string, BenchRun[]>(options.names.map((name) => [name, []]));
  try {
    for (let run = 0; run < options.runs; run += 1) {
      for (const name of options.names) {
        options.onRun?.(name, run);
        const file = join(directory, `${name}.${run}.json`);
        const started = performance.now();
        const child = spawnSync(process.execPath, ['--expose-gc', join(BENCH_DIRECTORY, 'main.js'), '--child', name, file], { stdio: 'inherit' });
        let outcome: BenchRun;
        try {
          outcome = JSON.parse(readFileSync(file, 'utf8')) as BenchRun;
        } catch {
          outcome = { durationSeconds: (performance.now() - started) / 1000, loadAverage: [], error: `the process exited (${child.status ?? child.signal}) without a result` };
        }
        runs.get(name)!.push(outcome);
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return options.names.map((name) => ({ name, ...mergeRuns(runs.get(name)!), runs: runs.get(name)! }));
}

/** Throws when a result lacks what the report needs, naming the benchmark. */
export function checkResult(name: string, result: BenchResult): void {
  const problems: string[] = [];
  if (typeof result.title !== 'string' || result.title === '') problems.push('a title');
  if (!Array.isArray(result.tables) || !Array.isArray(result.targets) || !Array.isArray(result.notes)) problems.push('tables, targets and notes arrays');
  else if (result.skipped === undefined && result.tables.every((table) => table.rows.length === 0)) problems.push('at least one row, or a reason it skipped');
  if (problems.length > 0) throw new TypeError(`${name}.bench: the result needs ${problems.join(' and ')}`);
}

/** Prints a result's targets and tables to the terminal. */
export function printResult(result: BenchResult): void {
  if (result.skipped !== undefined) {
    console.log(`skipped: ${result.skipped}`);
    return;
  }
  for (const table of result.tables) {
    console.log(table.title);
    console.table(table.rows);
  }
  for (const target of result.targets) {
    const runs = target.runs !== undefined && target.runs > 1 ? ` (met on ${target.metRuns ?? 0} of ${target.runs} runs)` : '';
    console.log(`target ${target.met ? 'met' : 'MISSED'}: ${target.name}: ${target.measured}${runs}`);
  }
  for (const note of result.notes) console.log(`note: ${note}`);
}
