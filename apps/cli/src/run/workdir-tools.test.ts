import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
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
 * root/work: notes.txt, sub/inner.txt, links that stay inside (file-in, dir-in)
 * and links out, live and dangling (file-out, dir-out, dangling-out, dangling-dir-out).
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
  return { root, work, outside, tools: workdirTools(work) };
}

test('the tools read, list, search and write inside the work directory, following links that stay inside', async () => {
  const { work, tools } = fixture();
  assert.deepEqual(await call(tools, 'read_file', { path: 'notes.txt' }), { content: 'The answer is 42.\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: 'file-in' }), { content: 'The answer is 42.\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: 'dir-in/inner.txt' }), { content: 'inner line\n' });
  assert.deepEqual(await call(tools, 'read_file', { path: join(work, 'sub/../notes.txt') }), { content: 'The answer is 42.\n' });
  assert.deepEqual(await call(tools, 'list_files', {}), { content: ['dangling-dir-out@', 'dangling-out@', 'dir-in@', 'dir-out@', 'file-in@', 'file-out@', 'notes.txt', 'sub/'].join('\n') });
  assert.deepEqual(await call(tools, 'list_files', { path: 'dir-in' }), { content: 'inner.txt' });
  assert.deepEqual(await call(tools, 'search_files', { query: 'line' }), { content: 'sub/inner.txt:1: inner line' });
  assert.deepEqual(await call(tools, 'search_files', { query: 'answer', path: 'sub/..' }), { content: 'notes.txt:1: The answer is 42.' });
  assert.deepEqual(await call(tools, 'write_file', { path: 'new/deeper/made.txt', content: 'made' }), { content: 'wrote 4 characters to new/deeper/made.txt' });
  assert.equal(readFileSync(join(work, 'new', 'deeper', 'made.txt'), 'utf8'), 'made');
  await call(tools, 'write_file', { path: 'file-in', content: 'short' });
  assert.equal(readFileSync(join(work, 'notes.txt'), 'utf8'), 'short', 'a link inside is written through, and the old content truncated');
  assert.equal(lstatSync(join(work, 'file-in')).isSymbolicLink(), true);
});

test('links out of the work directory, to a file or a directory, live or dangling, are refused by every tool and nothing outside changes', async () => {
  const { outside, tools } = fixture();
  const before = snapshot(outside);
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['read_file', { path: 'file-out' }, /"file-out" leads outside the work directory/],
    ['read_file', { path: 'dir-out/secret.txt' }, /"dir-out" leads outside the work directory/],
    ['read_file', { path: 'dir-out/deep/secret.txt' }, /"dir-out" leads outside the work directory/],
    ['read_file', { path: 'dangling-out' }, /"dangling-out": no such file or directory/],
    ['list_files', { path: 'dir-out' }, /"dir-out" leads outside/],
    ['list_files', { path: 'dir-out/deep' }, /"dir-out" leads outside/],
    ['search_files', { query: 'SENTINEL', path: 'dir-out' }, /"dir-out" leads outside/],
    ['write_file', { path: 'file-out', content: 'x' }, /"file-out" leads outside/],
    ['write_file', { path: 'dir-out/secret.txt', content: 'x' }, /"dir-out" leads outside/],
    ['write_file', { path: 'dir-out/fresh.txt', content: 'x' }, /"dir-out" leads outside/],
    ['write_file', { path: 'dir-out/fresh/deeper.txt', content: 'x' }, /"dir-out" leads outside/],
    ['write_file', { path: 'dangling-out', content: 'x' }, /"dangling-out" is a symbolic link to nothing/],
    ['write_file', { path: 'dangling-dir-out/file.txt', content: 'x' }, /"dangling-dir-out" is a symbolic link to nothing/],
    ['write_file', { path: 'dangling-dir-out/a/b.txt', content: 'x' }, /"dangling-dir-out" is a symbolic link to nothing/],
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
