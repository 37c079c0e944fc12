import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDirectory } from '@strata/testing';
import type { CliIo } from './cli-io.js';
import { runCli } from './run-cli.js';

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

/** Runs the command in-process with captured output (a pipe: no progress bar). */
async function strata(args: string[], cwd: string, env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env, cwd };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const bigObservation = (name: string) => `${name}\n${Array.from({ length: 400 }, (_, index) => `src/module_${index}.py: value ${index * 13}`).join('\n')}`;

/** One fixture per format, of our own, each with outputs large enough to need compaction in a small window. */
async function fixtures(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'strata-cli-'));
  const openai = [
    { role: 'system', content: 'You are an airline agent.' },
    { role: 'user', content: 'Find reservation ZX9Q77 and tell me its flight.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_reservation', arguments: '{"id":"ZX9Q77"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: bigObservation('reservation ZX9Q77 flight HAT_0417') },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'get_flight', arguments: '{"flight":"HAT_0417"}' } }] },
    { role: 'tool', tool_call_id: 'c2', content: bigObservation('flight HAT_0417 departs 2024-05-20') },
    { role: 'assistant', content: 'Reservation ZX9Q77 is on flight HAT_0417.' },
  ];
  const sweText = {
    history: [
      { role: 'system', content: 'SETTING: a shell.' },
      { role: 'user', content: 'ISSUE: module_17 prints the wrong value.' },
      { role: 'assistant', content: 'Search.', thought: 'Search.', action: 'search_dir value' },
      { role: 'user', content: bigObservation('matches'), message_type: 'observation' },
      { role: 'assistant', content: 'Open.', thought: 'Open.', action: 'open src/module_17.py' },
      { role: 'user', content: bigObservation('[File: src/module_17.py]'), message_type: 'observation' },
      { role: 'assistant', content: 'Fix src/module_17.py.', thought: 'Fix src/module_17.py.', action: 'edit 1:1' },
      { role: 'user', content: 'edited', message_type: 'observation' },
    ],
  };
  const tau = [
    { messages_display: `user: change flight HAT_0417\nassistant: None\ntool: ${bigObservation('flight HAT_0417 ok')}\nassistant: Done, HAT_0417 changed.` },
    { messages_display: 'user: hello\nassistant: How can I help?' },
  ];
  const sharegpt = [{ conversations: [{ from: 'human', value: 'Convert 10 USD.' }, { from: 'function_call', value: '{"name":"convert","arguments":{"amount":10}}' }, { from: 'observation', value: bigObservation('rate_2024 0.92') }, { from: 'gpt', value: 'rate_2024 gives 9.2 EUR.' }] }];
  const anthropic = { system: 'Coder.', messages: [{ role: 'user', content: 'List.' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: bigObservation('files') }] }, { role: 'assistant', content: 'See src/module_3.py.' }] };
  await writeFile(join(directory, 'openai.json'), JSON.stringify(openai));
  await writeFile(join(directory, 'swe-text.traj'), JSON.stringify(sweText));
  await writeFile(join(directory, 'tau-few-shot.jsonl'), tau.map((record) => JSON.stringify(record)).join('\n'));
  await writeFile(join(directory, 'sharegpt.json'), JSON.stringify(sharegpt));
  await writeFile(join(directory, 'anthropic.json'), JSON.stringify(anthropic));
  return directory;
}

const SUMMARY_KEYS = ['runs', 'failedRuns', 'turns', 'inputTokens', 'reductionVsRaw', 'cost', 'overWindowTurns', 'prefixReuse', 'compactions', 'orphans', 'splitUnits', 'anchorKept', 'goalKept', 'recovery', 'laterUseRecall', 'oracleViolations', 'assemblyMs'];

test('replay --json over every format: documented keys, no orphans or split units, anchor kept, recovery whole', async () => {
  const directory = await fixtures();
  const { code, stdout, stderr } = await strata(['replay', directory, '--window', '2048', '--json', '--trace-dir', 'traces'], directory, { STRATA_SHARED_DIR: sharedDirectory() });
  assert.equal(stderr, '');
  assert.equal(code, 0);
  const report = JSON.parse(stdout);
  assert.deepEqual(Object.keys(report), ['window', 'encoding', 'pricing', 'policies', 'oracle', 'runs', 'errors', 'compared', 'total', 'assembled']);
  assert.deepEqual(report.pricing, { cachedToken: 0.1, newToken: 1, cacheWriteToken: 1.25 });
  assert.deepEqual(report.runs.map((run: { format: string }) => run.format).sort(), ['anthropic', 'openai', 'sharegpt', 'swe-agent', 'tau-bench', 'tau-bench']);
  assert.deepEqual(Object.keys(report.total), ['raw', 'last-n', 'clear-tool-uses', 'pressure', 'masked-view']);
  for (const [policy, summary] of Object.entries<Record<string, any>>(report.total)) {
    assert.deepEqual(Object.keys(summary), SUMMARY_KEYS, policy);
    assert.equal(summary.orphans, 0, policy);
    assert.equal(summary.splitUnits, 0, policy);
    assert.equal(summary.anchorKept, 1, policy);
    if (report.oracle) assert.equal(summary.oracleViolations, 0, policy);
  }
  const { pressure, raw } = report.total;
  assert.ok(pressure.inputTokens < raw.inputTokens, 'the small window forced compaction');
  assert.ok(pressure.recovery.masked > 0);
  assert.equal(pressure.recovery.share, 1);
  assert.equal(raw.recovery.share, null);
  assert.match(raw.recovery.note, /no way back/);
  // The SWE-agent text form's observations were masked (call + result pairs), not pinned as user messages.
  const swe = report.runs.find((run: { format: string }) => run.format === 'swe-agent');
  assert.ok(swe.policies['masked-view'].recovery.masked > 0);
  assert.ok((await readdir(join(directory, 'traces'))).includes('pressure'));
});

test('a malformed record is named with file, record and field; the other files still replay', async () => {
  const directory = await fixtures();
  await writeFile(join(directory, 'broken.json'), JSON.stringify([{ traj: [{ role: 'user', content: 'hi' }] }, { traj: [{ role: 'robot', content: 'x' }] }]));
  const { code, stdout, stderr } = await strata(['replay', directory, '--json', '--policy', 'raw'], directory);
  assert.equal(code, 1);
  // The file as the user named it: under the directory given on the command line.
  const broken = join(directory, 'broken.json');
  assert.equal(stderr, `strata replay: ${broken}: [1]: [1]: traj[0].role: expected "system", "developer", "user", "assistant" or "tool", got "robot"\n`);
  const report = JSON.parse(stdout);
  assert.deepEqual(report.errors[0], { file: broken, record: '[1]', field: 'traj[0].role', message: '[1]: traj[0].role: expected "system", "developer", "user", "assistant" or "tool", got "robot"' });
  assert.equal(report.runs.length, 7);
});

test('bad input: each a one-line error and a non-zero exit, never a stack trace', async () => {
  const directory = await fixtures();
  await writeFile(join(directory, 'empty.json'), '');
  await writeFile(join(directory, 'truncated.json'), '[{"role": "user", "content": "hel');
  await writeFile(join(directory, 'unknown.json'), JSON.stringify({ rows: [1, 2] }));
  await writeFile(join(directory, 'prompts.json'), JSON.stringify([{ conversations: [{ from: 'human', value: 'Name a prime.' }] }, { conversations: [{ from: 'human', value: 'And another?' }] }]));
  await mkdir(join(directory, 'nothing'));
  const cases: Array<[string[], RegExp]> = [
    [['replay', 'openai.json', '--format', 'xml'], /^strata: --format "xml" is not one of auto, openai, anthropic, tau-bench, swe-agent, mini-swe-agent, openhands, claude-code, codex, sharegpt, llama-factory, alpaca$/],
    [['replay', 'empty.json'], /^strata replay: empty\.json: the file is empty$/],
    [['replay', 'truncated.json'], /^strata replay: truncated\.json: not JSON: .*\(a truncated file\?\)$/],
    [['replay', 'unknown.json'], /^strata replay: unknown\.json: no record of a known trajectory format/],
    [['replay', 'prompts.json'], /^strata replay: prompts\.json: the file holds no agent turns: none of its 2 conversation\(s\) has an assistant message/],
    [['replay', 'nothing'], /^strata replay: nothing: a directory with no trajectories/],
    [['replay', 'missing.json'], /^strata replay: missing\.json: no such file or directory$/],
    [['replay', 'openai.json', '--window=-3'], /^strata: --window must be a positive integer, got "-3"$/],
    [['replay', 'openai.json', '--window', '40', '--policy', 'pressure'], /^strata replay: openai\.json: record: pressure: .*/],
    [['frobnicate'], /^strata: unknown command "frobnicate"/],
  ];
  for (const [args, pattern] of cases) {
    const { code, stderr } = await strata(args, directory);
    assert.notEqual(code, 0, args.join(' '));
    assert.equal(stderr.trimEnd().split('\n').length, 1, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr.trimEnd(), pattern);
  }
  // The real executable: the same one line, and no stack trace.
  const spawned = spawnSync(process.execPath, [MAIN, 'replay', 'truncated.json'], { cwd: directory, encoding: 'utf8' });
  assert.equal(spawned.status, 2, 'nothing replayed: a usage-class exit');
  assert.equal(spawned.stderr.trimEnd().split('\n').length, 1);
  assert.doesNotMatch(spawned.stderr, /\n\s+at /);
});

test('replay of the trajectory fixtures of every importer (packages/context/fixtures/trajectories): 0 refused records', async () => {
  const directory = fileURLToPath(new URL('../../../packages/context/fixtures/trajectories/', import.meta.url));
  const files = (await readdir(directory)).filter((name) => name !== 'prompts-only.json').sort();
  const { code, stdout, stderr } = await strata(['replay', ...files, '--json', '--policy', 'raw'], directory);
  assert.equal(stderr, '');
  assert.equal(code, 0);
  const report = JSON.parse(stdout) as { runs: Array<{ file: string; format: string }>; errors: unknown[] };
  assert.deepEqual(report.errors, []);
  assert.deepEqual([...new Set(report.runs.map((run) => run.format))].sort(), ['claude-code', 'codex', 'llama-factory', 'mini-swe-agent', 'openai', 'openhands', 'sharegpt', 'tau-bench']);
  // The file with prompts only: one line saying so, and a non-zero exit.
  const none = await strata(['replay', 'prompts-only.json', '--policy', 'raw'], directory);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^strata replay: prompts-only\.json: the file holds no agent turns: .*\n$/);
});

test('examples: traces per turn, a per-turn table, the viewer; trace show and diff read them back', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-examples-'));
  const examples = await strata(['examples', '--out', 'out'], directory);
  assert.equal(examples.code, 0, examples.stderr);
  assert.match(examples.stdout, /turn\s+path\s+input\/window\s+system\/tools\/data\/history/);
  const html = await readFile(join(directory, 'out', 'report.html'), 'utf8');
  assert.match(html, /uPlot/);
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href="http/);

  const show = await strata(['trace', 'show', 'out'], directory);
  assert.equal(show.code, 0);
  // A context folder with at least two turns, wherever the examples put it.
  const secondTurn = (await readdir(join(directory, 'out'), { recursive: true })).sort().find((name) => name.endsWith('turn-0002.json'))!;
  const contextDir = join('out', dirname(secondTurn));
  const diff = await strata(['trace', 'diff', join(contextDir, 'turn-0001.json'), join(contextDir, 'turn-0002.json')], directory);
  assert.equal(diff.code, 0, diff.stderr);
  assert.match(diff.stdout, /messages: \d+ added, \d+ compacted, \d+ removed, \d+ kept/);
  assert.match(diff.stdout, /tokens system\/tools\/data\/history: \d+\/\d+\/\d+\/\d+ -> /);
  const notTrace = await strata(['trace', 'show', 'out/report.html'], directory);
  assert.equal(notTrace.code, 2);
  assert.match(notTrace.stderr, /report\.html: not JSON/);
});
