// Keeps the benchmark harness working: every benchmark module loads, each that
// takes options runs on tiny inputs and returns a well-formed result, and the
// report renders. Figures are not checked here (no timed tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sharedDirectory } from '@strata/testing';
import { BENCH_DIRECTORY, benchmarkNames, loadBenchmark, runBenchmark } from './harness.js';
import { describeEnvironment, renderMarkdown, writeReport, type BenchEntry, type BenchReport } from './report.js';

const OURS = ['assembler', 'compaction', 'context-workspace', 'scaling', 'token-counting', 'trimming', 'worker-context'];

test('every *.bench module exports run(), and the ones this harness ships are all found', async () => {
  const names = benchmarkNames();
  for (const name of OURS) assert.ok(names.includes(name), `${name}.bench is missing`);
  for (const name of names) assert.equal(typeof (await loadBenchmark(name)).run, 'function', name);
});

test('each benchmark that takes options runs on tiny inputs and returns a result the report can render', async () => {
  const entries: BenchEntry[] = [];
  for (const name of benchmarkNames()) {
    const module = await loadBenchmark(name);
    if (module.run.length === 0) {
      console.log(`# notice: ${name}.bench takes no options and prints its figures; not smoke-run`);
      continue;
    }
    const entry = await runBenchmark(name, { size: 'smoke' });
    assert.equal(entry.error, undefined, `${name}: ${entry.error}`);
    assert.ok(entry.result, `${name} returned no result`);
    if (sharedDirectory()) assert.equal(entry.result.skipped, undefined, `${name} skipped although ../shared is present`);
    entries.push(entry);
  }
  for (const name of OURS) assert.ok(entries.some((entry) => entry.name === name), `${name} was not smoke-run`);

  const report: BenchReport = { format: 'strata.bench-report', version: 2, runs: 1, ...describeEnvironment(resolve(BENCH_DIRECTORY, '..', '..')), benchmarks: entries };
  const directory = mkdtempSync(join(tmpdir(), 'strata-bench-'));
  try {
    writeReport(report, directory);
    const written = JSON.parse(readFileSync(join(directory, 'latest.json'), 'utf8')) as BenchReport;
    assert.equal(written.format, 'strata.bench-report');
    assert.equal(written.benchmarks.length, entries.length);
    assert.match(written.node, /^v\d+/);
    assert.notEqual(written.packages['gpt-tokenizer'], 'not installed');
    const markdown = readFileSync(join(directory, 'latest.md'), 'utf8');
    assert.equal(markdown, renderMarkdown(report));
    for (const entry of entries) assert.ok(markdown.includes(`## ${entry.name}`), `${entry.name} has no section`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a benchmark that throws is recorded as failed, and one that returns nothing keeps what it printed', async () => {
  const report = renderMarkdown({
    format: 'strata.bench-report',
    version: 2,
    runs: 1,
    date: '2026-01-01T00:00:00.000Z',
    commit: 'abc1234',
    machine: { cpu: 'cpu', cores: 2, memoryGiB: 4, os: 'linux', loadAverage: [1, 1, 1] },
    node: 'v20.0.0',
    packages: {},
    benchmarks: [
      { name: 'broken', durationSeconds: 0.1, error: 'Error: boom' },
      { name: 'printer', durationSeconds: 0.2, printed: 'a | b\n1 | 2\n' },
      {
        name: 'data',
        durationSeconds: 0.3,
        result: { title: 'Data', method: 'How.', tables: [{ title: 'T', rows: [{ a: 1, 'b|c': 'x|y' }] }], targets: [{ name: 'goal', measured: '2x', met: false }], notes: ['n'] },
      },
    ],
  });
  assert.match(report, /## broken\n\nRan in 0\.1 s\.\n\n\*\*Failed:\*\* Error: boom/);
  assert.match(report, /```text\na \| b\n1 \| 2\n```/);
  assert.match(report, /\| data \| goal \| 2x \| \*\*no\*\* \|/);
  assert.match(report, /\| a \| b\\\|c \|\n\|---\|---\|\n\| 1 \| x\\\|y \|/);
});
