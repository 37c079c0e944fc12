import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolOutcome } from '@strata/context';
import { workdirTools } from './workdir-tools.js';

const SENTINEL = 'SENTINEL-outside-the-work-directory';

type Tools = ReturnType<typeof workdirTools>;

async function call(tools: Tools, name: string, input: Record<string, unknown>): Promise<ToolOutcome> {
  const tool = tools.find((candidate) => candidate.name === name);
  assert.ok(tool, name);
  return tool.execute(input as never, { contextId: 'test', toolCallId: 'call', signal: new AbortController().signal });
}

/** Everything under `directory`, links as their targets, so that any change outside shows as a difference. */
function snapshot(directory: string): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (path: string, shown: string) => {
    const status = lstatSync(path);
    if (status.isSymbolicLink()) found[shown] = `link -> ${readlinkSync(path)}`;
    else if (status.isDirectory()) {
      found[shown] = 'directory';
      for (const name of readdirSync(path).sort()) visit(join(path, name), `${shown}/${name}`);
    } else found[shown] = `file ${readFileSync(path, 'utf8')} (${status.mtimeMs})`;
  };
  visit(directory, '.');
  return found;
}

/**
 * root/work: notes.txt, sub/inner.txt, links that stay inside (file-in, dir-in,
 * sub/up to the work directory, dangling-in to a missing sub/to-be-made.txt),
 * links out, live and dangling (file-out, dir-out, dangling-out, dangling-dir-out),
 * a chain of links inside that ends outside (chain-out) and a loop (loop-a, loop-b).
 * root/outside: secret.txt and deep/secret.txt holding the sentinel.
 */
function fixture() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'strata-workdir-')));
  const work = join(root, 'work');
  const outside = join(root, 'outside');
  mkdirSync(join(work, 'sub'), { recursive: true });
  mkdirSync(join(outside, 'deep'), { recursive: true });
  writeFileSync(join(work, 'notes.txt'), 'The answer is 42.\n');
  writeFileSync(join(work, 'sub', 'inner.txt'), 'inner line\n');
  writeFileSync(join(outside, 'secret.txt'), `${SENTINEL}\n`);
  writeFileSync(join(outside, 'deep', 'secret.txt'), `${SENTINEL}\n`);
  symlinkSync('notes.txt', join(work, 'file-in'));
  symlinkSync('sub', join(work, 'dir-in'));
  symlinkSync(join(outside, 'secret.txt'), join(work, 'file-out'));
  symlinkSync('../outside', join(work, 'dir-out'));
  symlinkSync(join(outside, 'created.txt'), join(work, 'dangling-out'));
  symlinkSync(join(outside, 'created-directory'), join(work, 'dangling-dir-out'));
  symlinkSync('..', join(work, 'sub', 'up'));
  symlinkSync('dir-in/up/dir-out/secret.txt', join(work, 'chain-out'));
  symlinkSync('loop-b', join(work, 'loop-a'));
  symlinkSync('loop-a', join(work, 'loop-b'));
  symlinkSync(join(work, 'sub', 'to-be-made.txt'), join(work, 'dangling-in'));
  return { root, work, outside, tools: workdirTools(work) };
}

test('the tools read, list, search and write inside the work directory, following links that stay inside', async () => {
  const { work, tools } = fixture();
  assert.deepEqual(await call(tools, 'read_file', { path: 'notes.txt' }), { content: 'The answer is 42.\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: 'file-in' }), { content: 'The answer is 42.\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: 'dir-in/inner.txt' }), { content: 'inner line\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: join(work, 'sub/../notes.txt') }), { content: 'The answer is 42.\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: 'sub/up/sub/up/notes.txt' }), { content: 'The answer is 42.\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: 'sub/up/file-in' }), { content: 'The answer is 42.\n' });
  assert.match((await call(tools, 'read_file', { path: 'sub/up/../notes.txt' })).content, /"sub\/up\/..\/notes.txt": no such file or directory/, '`..` goes back by name (to sub), never through a link');
  const listed = ['chain-out@', 'dangling-dir-out@', 'dangling-in@', 'dangling-out@', 'dir-in@', 'dir-out@', 'file-in@', 'file-out@', 'loop-a@', 'loop-b@', 'notes.txt', 'sub/'];
  assert.deepEqual(await call(tools, 'list_files', {}), { content: listed.join('\n') });
  assert.deepEqual(await call(tools, 'list_files', { path: 'dir-in' }), { content: 'inner.txt\nup@' });
  assert.deepEqual(await call(tools, 'list_files', { path: 'sub/up' }), { content: listed.join('\n') });
  assert.deepEqual(await call(tools, 'search_files', { query: 'line' }), { content: 'sub/inner.txt:1: inner line' });
  assert.deepEqual(await call(tools, 'search_files', { query: 'answer', path: 'sub/..' }), { content: 'notes.txt:1: The answer is 42.' });
  assert.deepEqual(await call(tools, 'write_file', { path: 'new/deeper/made.txt', content: 'made' }), { content: 'wrote 4 characters to new/deeper/made.txt' });
  assert.equal(readFileSync(join(work, 'new', 'deeper', 'made.txt'), 'utf8'), 'made');
  await call(tools, 'write_file', { path: 'file-in', content: 'short' });
  assert.equal(readFileSync(join(work, 'notes.txt'), 'utf8'), 'short', 'a link inside is written through, and the old content truncated');
  assert.equal(lstatSync(join(work, 'file-in')).isSymbolicLink(), true);
  await call(tools, 'write_file', { path: 'dangling-in', content: 'made through a link' });
  assert.equal(readFileSync(join(work, 'sub', 'to-be-made.txt'), 'utf8'), 'made through a link', 'a dangling link inside makes its target inside');
});

test('links out of the work directory, to a file or a directory, live or dangling, are refused by every tool and nothing outside changes', async () => {
  const { outside, tools } = fixture();
  const before = snapshot(outside);
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['read_file', { path: 'file-out' }, /"file-out" leads outside the work directory/],
    ['read_file', { path: 'dir-out/secret.txt' }, /"dir-out" leads outside the work directory/],
    ['read_file', { path: 'dir-out/deep/secret.txt' }, /"dir-out" leads outside the work directory/],
    ['read_file', { path: 'dangling-out' }, /"dangling-out" leads outside the work directory/],
    ['read_file', { path: 'dangling-dir-out/file.txt' }, /"dangling-dir-out" leads outside the work directory/],
    ['read_file', { path: 'chain-out' }, /"dir-out" leads outside the work directory/],
    ['read_file', { path: 'loop-a' }, /"loop-.": too many levels of symbolic links/],
    ['list_files', { path: 'dir-out' }, /"dir-out" leads outside/],
    ['list_files', { path: 'dir-out/deep' }, /"dir-out" leads outside/],
    ['search_files', { query: 'SENTINEL', path: 'dir-out' }, /"dir-out" leads outside/],
    ['write_file', { path: 'file-out', content: 'x' }, /"file-out" leads outside/],
    ['write_file', { path: 'dir-out/secret.txt', content: 'x' }, /"dir-out" leads outside/],
    ['write_file', { path: 'dir-out/fresh.txt', content: 'x' }, /"dir-out" leads outside/],
    ['write_file', { path: 'dir-out/fresh/deeper.txt', content: 'x' }, /"dir-out" leads outside/],
    ['write_file', { path: 'dangling-out', content: 'x' }, /"dangling-out" leads outside/],
    ['write_file', { path: 'dangling-dir-out/file.txt', content: 'x' }, /"dangling-dir-out" leads outside/],
    ['write_file', { path: 'dangling-dir-out/a/b.txt', content: 'x' }, /"dangling-dir-out" leads outside/],
    ['write_file', { path: 'chain-out', content: 'x' }, /"dir-out" leads outside/],
    ['write_file', { path: 'loop-a/x.txt', content: 'x' }, /too many levels of symbolic links/],
  ];
  for (const [name, input, message] of cases) {
    const outcome = await call(tools, name, input);
    assert.equal(outcome.isError, true, `${name} ${JSON.stringify(input)}: ${outcome.content}`);
    assert.match(outcome.content, message, `${name} ${JSON.stringify(input)}`);
  }
  assert.deepEqual(await call(tools, 'search_files', { query: 'SENTINEL' }), { content: 'no matches' }, 'search does not walk links');
  assert.deepEqual(snapshot(outside), before);
});

test('paths that climb out, absolute paths elsewhere, NUL, overlong paths and names, and inputs of the wrong type are refused, saying why', async () => {
  const { outside, tools } = fixture();
  const before = snapshot(outside);
  const cases: Array<[unknown, RegExp]> = [
    ['..', /".." is outside the work directory/],
    ['../outside/secret.txt', /is outside the work directory/],
    ['sub/../../outside/secret.txt', /is outside the work directory/],
    ['/etc/passwd', /"\/etc\/passwd" is outside the work directory/],
    [join(outside, 'secret.txt'), /is outside the work directory/],
    ['notes.txt\0.png', /contains a NUL character/],
    [`${'a/'.repeat(2_500)}x`, /the path is 5001 bytes long; paths are at most 4095 bytes/],
    ['x'.repeat(256), /a name in the path is 256 bytes long; names are at most 255 bytes/],
    [`sub/${'é'.repeat(128)}`, /a name in the path is 256 bytes long/],
    ['', /path must be a non-empty string/],
    [42, /path must be a non-empty string/],
    [null, /path must be a non-empty string/],
  ];
  for (const [path, message] of cases) {
    for (const [name, input] of [
      ['read_file', { path }],
      ['write_file', { path, content: 'x' }],
      ['list_files', { path }],
      ['search_files', { path, query: 'x' }],
    ] as const) {
      const outcome = await call(tools, name, input);
      assert.equal(outcome.isError, true, `${name} ${String(path).slice(0, 40)}: ${outcome.content}`);
      assert.match(outcome.content, message, `${name} ${String(path).slice(0, 40)}`);
      assert.ok(!outcome.content.includes(SENTINEL));
    }
  }
  assert.match((await call(tools, 'write_file', { path: 'a.txt', content: 7 })).content, /content must be a string/);
  assert.match((await call(tools, 'search_files', { query: '' })).content, /query must be a non-empty string/);
  assert.match((await call(tools, 'read_file', { path: 'sub' })).content, /"sub" is a directory/);
  assert.match((await call(tools, 'read_file', { path: '.' })).content, /names the work directory itself/);
  assert.match((await call(tools, 'list_files', { path: 'notes.txt' })).content, /"notes.txt": a part of the path is not a directory/);
  assert.match((await call(tools, 'read_file', { path: 'missing.txt' })).content, /"missing.txt": no such file or directory/);
  assert.ok(!(await call(tools, 'read_file', { path: 'missing.txt' })).content.includes('/proc/'), 'descriptor paths are never shown');
  assert.deepEqual(snapshot(outside), before);
});

test('a work directory given as a symbolic link works: paths inside it, relative or absolute, are accepted', async () => {
  const { root, work } = fixture();
  symlinkSync(work, join(root, 'work-link'));
  const tools = workdirTools(join(root, 'work-link'));
  assert.deepEqual(await call(tools, 'read_file', { path: 'notes.txt' }), { content: 'The answer is 42.\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: join(root, 'work-link', 'sub', 'inner.txt') }), { content: 'inner line\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: join(work, 'sub', 'inner.txt') }), { content: 'inner line\n' });
  assert.equal((await call(tools, 'write_file', { path: 'sub/through-link.txt', content: 'ok' })).isError, undefined);
  assert.equal(readFileSync(join(work, 'sub', 'through-link.txt'), 'utf8'), 'ok');
  assert.match((await call(tools, 'list_files', { path: '.' })).content, /^notes\.txt$/m);
  assert.match((await call(tools, 'read_file', { path: 'file-out' })).content, /leads outside the work directory/);
  const missing = workdirTools(join(root, 'nowhere'));
  assert.match((await call(missing, 'read_file', { path: 'notes.txt' })).content, /the work directory .*nowhere is not available \(ENOENT\)/);
});

/**
 * A separate process swapping `work/target` (mode `file`: a regular file, a
 * link to outside/secret.txt, a link to a missing outside/fresh.txt) or
 * `work/dir` (mode `directory`: a real directory, a link to outside/deep) in
 * a loop, as fast as it can, until killed. Every step tolerates what the
 * tools did meanwhile (a directory made in a gap, a file written).
 */
const SWAPPER = `
const { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const [mode, work, outside] = process.argv.slice(1);
const attempt = (step) => { try { step(); } catch {} };
const swapFile = join(work, '.swap-file'), swapLink = join(work, '.swap-link'), swapDirectory = join(work, '.swap-directory');
for (let cycle = 0; ; cycle += 1) {
  if (mode === 'file') {
    const target = join(work, 'target');
    attempt(() => { writeFileSync(swapFile, 'inside\\n'); renameSync(swapFile, target); });
    attempt(() => { rmSync(swapLink, { force: true }); symlinkSync(join(outside, 'secret.txt'), swapLink); renameSync(swapLink, target); });
    attempt(() => { writeFileSync(swapFile, 'inside\\n'); renameSync(swapFile, target); });
    attempt(() => { rmSync(swapLink, { force: true }); symlinkSync(join(outside, 'fresh.txt'), swapLink); renameSync(swapLink, target); });
  } else {
    const target = join(work, 'dir');
    attempt(() => { rmSync(swapDirectory, { recursive: true, force: true }); mkdirSync(swapDirectory); writeFileSync(join(swapDirectory, 'secret.txt'), 'inside\\n'); rmSync(target, { recursive: true, force: true }); renameSync(swapDirectory, target); });
    attempt(() => { rmSync(swapLink, { force: true }); symlinkSync(join(outside, 'deep'), swapLink); rmSync(target, { recursive: true, force: true }); renameSync(swapLink, target); });
  }
  if (cycle === 0) process.stdout.write('ready\\n');
}
`;

const RACE_TRIES = 4_000;

/** Runs `tries` while the swapper runs (it has swapped at least once before they start). */
async function whileSwapping(mode: 'file' | 'directory', work: string, outside: string, tries: () => Promise<void>): Promise<void> {
  const swapper = spawn(process.execPath, ['-e', SWAPPER, mode, work, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(swapper, 'exit');
  try {
    const [ready] = (await Promise.race([once(swapper.stdout, 'data'), exited.then(() => assert.fail('the swapper exited'))])) as [Buffer];
    assert.match(String(ready), /ready/);
    await tries();
  } finally {
    swapper.kill('SIGKILL');
    await exited;
  }
}

/** No result carries what is outside; the diagnostics say how the calls ended (they vary with timing, the assertion does not). */
function assertNeverOutside(t: TestContext, label: string, outcomes: readonly ToolOutcome[]) {
  const leaked = outcomes.filter((outcome) => outcome.content.includes(SENTINEL)).length;
  assert.equal(leaked, 0, `${label}: ${leaked} of ${outcomes.length} results carried what is outside`);
  const refusals = new Map<string, number>();
  for (const outcome of outcomes) {
    const reason = outcome.content.replace(/\d+/g, 'N');
    if (outcome.isError === true) refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
  }
  const refused = [...refusals.values()].reduce((sum, count) => sum + count, 0);
  t.diagnostic(`${label}: ${outcomes.length} calls, ${outcomes.length - refused} answered inside, ${refused} refused (${[...refusals].map(([reason, count]) => `${count} ${reason}`).join('; ')})`);
}

test('while another process swaps a file for links out (live and dangling), 4,000 reads and 4,000 writes never read or write outside', async (t) => {
  const { work, outside, tools } = fixture();
  writeFileSync(join(work, 'target'), 'inside\n');
  const before = snapshot(outside);
  const reads: ToolOutcome[] = [];
  const writes: ToolOutcome[] = [];
  await whileSwapping('file', work, outside, async () => {
    for (let index = 0; index < RACE_TRIES; index += 1) {
      reads.push(await call(tools, 'read_file', { path: 'target' }));
      writes.push(await call(tools, 'write_file', { path: 'target', content: 'written by the tool' }));
    }
  });
  assertNeverOutside(t, 'read_file target', reads);
  assertNeverOutside(t, 'write_file target', writes);
  assert.ok(reads.every((outcome) => outcome.isError === true || /^(inside\n|written by the tool)$/.test(outcome.content)), 'a read answers with what was inside');
  assert.deepEqual(snapshot(outside), before, 'nothing outside was created or changed');
});

test('while another process swaps a directory for a link out, 4,000 tries of read, write, create, list and search never touch outside', async (t) => {
  const { work, outside, tools } = fixture();
  writeFileSync(join(outside, 'deep', `${SENTINEL}.txt`), 'a name only a listing outside would show');
  const before = snapshot(outside);
  const tries: Array<[string, (index: number) => Record<string, unknown>]> = [
    ['read_file', () => ({ path: 'dir/secret.txt' })],
    ['write_file', () => ({ path: 'dir/secret.txt', content: 'written by the tool' })],
    ['write_file', (index) => ({ path: `dir/new-${index}/file.txt`, content: 'created by the tool' })],
    ['list_files', () => ({ path: 'dir' })],
    ['search_files', () => ({ path: 'dir', query: 'SENTINEL' })],
  ];
  const outcomes = tries.map((): ToolOutcome[] => []);
  await whileSwapping('directory', work, outside, async () => {
    for (let index = 0; index < RACE_TRIES; index += 1) {
      const [name, input] = tries[index % tries.length]!;
      outcomes[index % tries.length]!.push(await call(tools, name, input(index)));
    }
  });
  tries.forEach(([name, input], index) => assertNeverOutside(t, `${name} ${JSON.stringify(input(0))}`, outcomes[index]!));
  assert.deepEqual(snapshot(outside), before, 'nothing outside was created or changed');
});

test('a hidden directory inside the work directory (the trace directory) is never listed, searched or read, not even through a link', async () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'strata-hidden-')));
  mkdirSync(join(work, '.strata', 'runs', 'run-1'), { recursive: true });
  writeFileSync(join(work, '.strata', 'runs', 'run-1', 'turn-1.json'), 'NEEDLE in an old prompt\n');
  writeFileSync(join(work, 'notes.txt'), 'NEEDLE in the notes\n');
  symlinkSync('.strata/runs', join(work, 'traces-link'));
  const tools = workdirTools(work, { hidden: [join(work, '.strata', 'runs')] });
  const searched = await call(tools, 'search_files', { query: 'NEEDLE' });
  assert.equal(searched.content, 'notes.txt:1: NEEDLE in the notes');
  assert.deepEqual((await call(tools, 'list_files', { path: '.strata' })).content, '(empty)');
  assert.match((await call(tools, 'list_files', {})).content, /notes\.txt/);
  for (const [name, input] of [
    ['list_files', { path: '.strata/runs' }],
    ['list_files', { path: 'traces-link/run-1' }],
    ['search_files', { query: 'NEEDLE', path: '.strata/runs' }],
    ['search_files', { query: 'NEEDLE', path: 'traces-link' }],
    ['read_file', { path: '.strata/runs/run-1/turn-1.json' }],
    ['read_file', { path: 'traces-link/run-1/turn-1.json' }],
    ['write_file', { path: '.strata/runs/run-1/turn-1.json', content: 'overwritten' }],
    ['write_file', { path: '.strata/runs/run-2/new.json', content: 'planted' }],
    ['write_file', { path: 'traces-link/run-1/turn-2.json', content: 'planted' }],
  ] as const) {
    const outcome = await call(tools, name, input);
    assert.equal(outcome.isError, true, `${name} ${JSON.stringify(input)}`);
    assert.match(outcome.content, /holds Strata's traces/);
    assert.ok(!outcome.content.includes('old prompt'));
  }
  // Nothing was written or created in the hidden directory; beside it, writing still works.
  assert.equal(readFileSync(join(work, '.strata', 'runs', 'run-1', 'turn-1.json'), 'utf8'), 'NEEDLE in an old prompt\n');
  assert.deepEqual(readdirSync(join(work, '.strata', 'runs')), ['run-1']);
  assert.deepEqual(readdirSync(join(work, '.strata', 'runs', 'run-1')), ['turn-1.json']);
  assert.equal((await call(tools, 'write_file', { path: '.strata/notes.txt', content: 'kept' })).isError, undefined);
  assert.equal(readFileSync(join(work, '.strata', 'notes.txt'), 'utf8'), 'kept');
  // A hidden directory that holds the work directory hides nothing (the tools would be of no use).
  assert.match((await call(workdirTools(join(work, '.strata'), { hidden: [work] }), 'list_files', {})).content, /runs\//);
  // Without the option the same tree is visible: the test can fail.
  assert.match((await call(workdirTools(work), 'search_files', { query: 'NEEDLE' })).content, /old prompt/);
});
