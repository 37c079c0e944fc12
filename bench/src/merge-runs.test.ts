import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BenchResult } from './bench-result.js';
import { mergeCell, mergeRuns, type BenchRun } from './merge-runs.js';
import { renderMarkdown, targetTally, type BenchReport } from './report.js';

test('a cell the runs agree on stays; numbers become the median with the range, in their own format; other text lists each run', () => {
  assert.equal(mergeCell(['3/100 (3.0%)', '3/100 (3.0%)', '3/100 (3.0%)']), '3/100 (3.0%)');
  assert.equal(mergeCell(['0.250', '0.3', '0.200']), '0.250 (0.200-0.300)');
  assert.equal(mergeCell([12, 10, 11]), '11 (10-12)');
  assert.equal(mergeCell(['1,200', '1,000', '1,100']), '1,100 (1,000-1,200)');
  assert.equal(mergeCell(['2.5x', '1.5x', '3.5x']), '2.5x (1.5x-3.5x)');
  assert.equal(mergeCell(['12.0%', '11.0%', '10.0%']), '11.0% (10.0%-12.0%)');
  // Mixed units are not numbers of one kind.
  assert.equal(mergeCell(['1.5x', '2%', '3']), '1.5x / 2% / 3');
  assert.equal(mergeCell(['fast', 'slow', null]), 'fast / slow / -');
  // The median of an even count is the upper middle, as `median` takes it.
  assert.equal(mergeCell(['1', '2']), '2 (1-2)');
});

const result = (figure: string, ratio: number, extraTarget = false): BenchResult => ({
  title: 'Speed',
  method: 'How.',
  tables: [{ title: 'speed', rows: [{ counter: 'ours', 'CPU ms': figure }] }],
  targets: [{ name: 'at most 2x', measured: `${ratio}x`, met: ratio <= 2 }, ...(extraTarget ? [{ name: 'only once', measured: 'yes', met: true }] : [])],
  notes: [`ran ${figure}`, 'same note'],
});
const run = (value: Partial<BenchRun>): BenchRun => ({ durationSeconds: 1, loadAverage: [1, 1, 1], ...value });

test('a target is met only when every run meets it; one a run does not give is missed', () => {
  const merged = mergeRuns([run({ result: result('1.0', 1.5) }), run({ result: result('3.0', 2.5, true) }), run({ result: result('2.0', 1.8), durationSeconds: 5 })]);
  assert.equal(merged.durationSeconds, 1);
  assert.deepEqual(merged.result!.tables[0]!.rows, [{ counter: 'ours', 'CPU ms': '2.0 (1.0-3.0)' }]);
  assert.deepEqual(merged.result!.targets, [
    { name: 'at most 2x', measured: '1.5x / 2.5x / 1.8x', met: false, metRuns: 2, runs: 3 },
    { name: 'only once', measured: 'not measured / yes / not measured', met: false, metRuns: 1, runs: 3 },
  ]);
  assert.deepEqual(merged.result!.notes, ['ran 1.0', 'same note', 'ran 3.0', 'ran 2.0']);
  const agreeing = mergeRuns([run({ result: result('1.0', 1.5) }), run({ result: result('1.0', 1.5) }), run({ result: result('1.0', 1.5) })]);
  assert.deepEqual(agreeing.result!.targets[0], { name: 'at most 2x', measured: '1.5x', met: true, metRuns: 3, runs: 3 });
});

test('a run that failed fails the merged entry and its targets; tables with other rows keep the first run and say so', () => {
  const failed = mergeRuns([run({ result: result('1.0', 1.5) }), run({ error: 'Error: out of memory' }), run({ result: result('1.0', 1.5) })]);
  assert.equal(failed.error, 'run 2: Error: out of memory');
  assert.equal(failed.result!.targets[0]!.met, false);
  const other: BenchResult = { ...result('1.0', 1), tables: [{ title: 'speed', rows: [] }] };
  const uneven = mergeRuns([run({ result: result('1.0', 1) }), run({ result: other })]);
  assert.deepEqual(uneven.result!.tables[0]!.rows, [{ counter: 'ours', 'CPU ms': '1.0' }]);
  assert.ok(uneven.result!.notes.some((note) => note.includes('"speed" has other rows')));
  assert.throws(() => mergeRuns([]), RangeError);
  assert.deepEqual(mergeRuns([run({ printed: 'a' }), run({ printed: 'b' })]).printed, '--- run 1 ---\na\n--- run 2 ---\nb');
});

test('the report counts the targets met on all runs and on each run alone, and gives each run its load', () => {
  const runs = [run({ result: result('1.0', 1.5), loadAverage: [0.5, 1, 1] }), run({ result: result('3.0', 2.5), loadAverage: [2.25, 1, 1] }), run({ result: result('2.0', 1.8), loadAverage: [1, 1, 1] })];
  const report: BenchReport = {
    format: 'strata.bench-report',
    version: 2,
    runs: 3,
    date: '2026-01-01T00:00:00.000Z',
    commit: 'abc1234',
    machine: { cpu: 'cpu', cores: 2, memoryGiB: 4, os: 'linux', loadAverage: [1, 1, 1] },
    node: 'v20.0.0',
    packages: {},
    benchmarks: [{ name: 'speed', ...mergeRuns(runs), runs }],
  };
  assert.deepEqual(targetTally(report), { total: 1, metOnAll: 0, metPerRun: [1, 0, 1] });
  const markdown = renderMarkdown(report);
  assert.match(markdown, /0 of 1 met on all 3 runs \(each run alone: 1, 0, 1\)\./);
  assert.match(markdown, /\| speed \| at most 2x \| 1\.5x \/ 2\.5x \/ 1\.8x \| \*\*no\*\* \(2 of 3\) \|/);
  assert.match(markdown, /Ran in 1\.0 \/ 1\.0 \/ 1\.0 s; load average at the start 0\.50 \/ 2\.25 \/ 1\.00\./);
});
