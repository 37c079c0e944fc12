import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { runCli } from '../run-cli.js';

async function strata(args: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: {}, cwd };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const listing = (name: string) => `${name}\n${Array.from({ length: 300 }, (_, index) => `src/module_${index}.py: value ${index * 13}`).join('\n')}`;

/** A run every policy assembles at 2,048 tokens: two large results, then an answer that uses what the first held. */
const small = [
  { role: 'system', content: 'You are an airline agent.' },
  { role: 'user', content: 'Find the reservation and tell me its flight.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_reservation', arguments: '{"id":"ZX9Q77"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: listing('reservation ZX9Q77 flight HAT_0417') },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'get_flight', arguments: '{"flight":"HAT_0417"}' } }] },
  { role: 'tool', tool_call_id: 'c2', content: listing('flight HAT_0417 departs 2024-05-20') },
  { role: 'assistant', content: 'Reservation ZX9Q77 is on flight HAT_0417; src/module_7.py says so.' },
];

/** A run Strata cannot assemble at 2,048 tokens: its newest step is a call whose argument alone is over the window (nothing may shorten it). */
const oversized = [
  { role: 'user', content: 'Write the file.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'w1', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: 'big.txt', text: listing('body').repeat(4) }) } }] },
  { role: 'tool', tool_call_id: 'w1', content: 'written' },
  { role: 'assistant', content: 'Done: big.txt written.' },
];

async function directoryWith(files: Record<string, unknown>): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-replay-'));
  for (const [name, records] of Object.entries(files)) {
    await mkdir(join(directory, name, '..'), { recursive: true });
    await writeFile(join(directory, name), (records as unknown[]).map((record) => JSON.stringify(record)).join('\n'));
  }
  return directory;
}

interface Summary {
  runs: number;
  failedRuns: number;
  inputTokens: number;
  reductionVsRaw: number | null;
  cost: { total: number; totalWithoutWritePremium: number };
  laterUseRecall: { needed: number; visible: number; byReference: number; missed: number; share: number | null };
}

test('reduction and cost compare only the runs every policy assembled; the runs a policy could not assemble are listed per policy', async () => {
  const directory = await directoryWith({ 'runs.jsonl': [small, oversized] });
  const { code, stdout, stderr } = await strata(['replay', 'runs.jsonl', '--window', '2048', '--json'], directory);
  assert.equal(code, 1, 'a run failed under some policies');
  const report = JSON.parse(stdout);
  assert.equal(stderr.split('\n').filter(Boolean).length, report.errors.length);
  assert.deepEqual(report.compared.runs, 1);
  assert.deepEqual(report.compared.of, 2);
  const failed = Object.entries<Array<{ file: string; record: string; message: string }>>(report.compared.notAssembled).filter(([, runs]) => runs.length > 0);
  assert.deepEqual(failed.map(([policy]) => policy).sort(), ['masked-view', 'pressure']);
  for (const [, runs] of failed) assert.deepEqual(runs.map((run) => [run.file, run.record]), [['runs.jsonl', report.runs[1].record]]);
  assert.deepEqual(report.compared.notAssembled.raw, []);
  // Over the compared run, every total is that run's own figure: raw's tokens are not the two runs' sum.
  const only = report.runs[0].policies;
  const total: Record<string, Summary> = report.total;
  for (const policy of ['raw', 'last-n', 'clear-tool-uses', 'pressure', 'masked-view']) {
    assert.equal(total[policy]!.runs, 1, policy);
    assert.equal(total[policy]!.inputTokens, only[policy].inputTokens, policy);
    assert.equal(total[policy]!.cost.total, only[policy].cost.total, policy);
    assert.equal(total[policy]!.reductionVsRaw, Math.round((1 - total[policy]!.inputTokens / total.raw!.inputTokens) * 10_000) / 10_000, policy);
  }
  assert.equal(total.pressure!.failedRuns, 1);
  assert.equal(total.raw!.failedRuns, 0);
  // Each policy over what it assembled: raw over both runs, Strata over the one; its reduction against raw over that one.
  const assembled: Record<string, Summary> = report.assembled;
  assert.equal(assembled.raw!.runs, 2);
  assert.equal(assembled.pressure!.runs, 1);
  assert.ok(assembled.raw!.inputTokens > total.raw!.inputTokens);
  assert.equal(assembled.pressure!.reductionVsRaw, total.pressure!.reductionVsRaw);
  // The text report says the same.
  const text = await strata(['replay', 'runs.jsonl', '--window', '2048'], directory);
  assert.match(text.stdout, /compared over the 1 of 2 runs every policy assembled; not assembled:\n {2}pressure: 1 of 2 \(runs\.jsonl /);
  assert.match(text.stdout, /each policy over every run it assembled/);
});

test('--json prints the report, baselines included, when every Strata run fails; the exit code still says failure', async () => {
  const directory = await directoryWith({ 'big.json': [oversized] });
  const { code, stdout, stderr } = await strata(['replay', 'big.json', '--window', '2048', '--json'], directory);
  assert.equal(code, 2);
  assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
  assert.match(stderr, /^strata replay: big\.json: /);
  const report = JSON.parse(stdout);
  assert.deepEqual(report.compared, { runs: 0, of: 1, notAssembled: { raw: [], 'last-n': [], 'clear-tool-uses': [], pressure: [report.compared.notAssembled.pressure[0]], 'masked-view': [report.compared.notAssembled['masked-view'][0]] } });
  for (const baseline of ['raw', 'last-n', 'clear-tool-uses']) {
    assert.equal(report.assembled[baseline].runs, 1, baseline);
    assert.ok(report.assembled[baseline].inputTokens > 0, baseline);
    assert.ok(report.runs[0].policies[baseline].inputTokens > 0, baseline);
  }
  assert.equal(report.assembled.pressure.runs, 0);
  assert.ok('error' in report.runs[0].policies.pressure);
  // Without --json: the one line and the same exit code.
  const text = await strata(['replay', 'big.json', '--window', '2048'], directory);
  assert.equal(text.code, 2);
  assert.equal(text.stdout, '');
});

test('file paths in the report are spelled as the user gave them', async () => {
  const directory = await directoryWith({ 'data/one.json': [small], 'data/two.jsonl': [small] });
  const elsewhere = await mkdtemp(join(tmpdir(), 'strata-cwd-'));
  const absolute = join(directory, 'data', 'one.json');
  const cases: Array<[string[], string, string[]]> = [
    [[absolute], elsewhere, [absolute]],
    [['./data/'], directory, ['./data/one.json', './data/two.jsonl']],
    [['data'], directory, ['data/one.json', 'data/two.jsonl']],
    [[join(directory, 'data')], elsewhere, [join(directory, 'data', 'one.json'), join(directory, 'data', 'two.jsonl')]],
  ];
  for (const [paths, cwd, expected] of cases) {
    const { code, stdout, stderr } = await strata(['replay', ...paths, '--policy', 'raw', '--json'], cwd);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout);
    assert.deepEqual(report.runs.map((run: { file: string }) => run.file), expected, paths.join(' '));
  }
  // A malformed file is named the same way.
  await writeFile(join(directory, 'data', 'bad.json'), '[{"role": "robot", "content": "x"}]');
  const bad = await strata(['replay', './data/', '--policy', 'raw', '--json'], directory);
  assert.equal(JSON.parse(bad.stdout).errors[0].file, './data/bad.json');
  assert.match(bad.stderr, /^strata replay: \.\/data\/bad\.json: /);
});

test('later-use recall in the report: the answer used values of the first result; the raw run sees them all', async () => {
  const directory = await directoryWith({ 'one.json': [small] });
  const { code, stdout } = await strata(['replay', 'one.json', '--window', '2048', '--json'], directory);
  assert.equal(code, 0);
  const total: Record<string, Summary> = JSON.parse(stdout).total;
  for (const [policy, summary] of Object.entries(total)) {
    const recall = summary.laterUseRecall;
    // HAT_0417 and src/module_7.py came from the results (ZX9Q77 only from an earlier answer: what a checkpoint would carry).
    assert.ok(recall.needed >= 2, policy);
    assert.equal(recall.visible + recall.byReference + recall.missed, recall.needed, policy);
    assert.equal(recall.share, Math.round(((recall.visible + recall.byReference) / recall.needed) * 10_000) / 10_000, policy);
  }
  assert.equal(total.raw!.laterUseRecall.missed, 0);
  assert.equal(total.raw!.laterUseRecall.byReference, 0);
});
