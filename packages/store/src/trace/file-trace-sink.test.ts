import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreAccessError } from '../errors/store-access-error.js';
import { StoreInputError } from '../errors/store-input-error.js';
import { createFileTraceSink, defaultTraceDirectory, traceFilePath } from './file-trace-sink.js';
import { temporaryDirectory } from '../testing/temporary-directory.js';

const freshDirectory = (): string => join(temporaryDirectory('strata-trace-'), 'context-traces');

test('one file per turn and per recovery attempt, at the documented paths, modes 0600 and 0700', async () => {
  const directory = freshDirectory();
  const sink = createFileTraceSink({ directory });
  await sink.write({ contextId: 'ctx-1', turn: 1, body: { schemaVersion: 5, note: '中文' } });
  await sink.write({ contextId: 'ctx-1', turn: 1, recoveryAttempt: 1, body: { schemaVersion: 5, recovery: true } });
  await sink.write({ contextId: 'ctx-1', turn: 2, body: [1, 2] });
  assert.deepEqual(readdirSync(join(directory, 'ctx-1')).sort(), ['turn-0001-recovery-1.json', 'turn-0001.json', 'turn-0002.json']);
  assert.equal(readFileSync(join(directory, 'ctx-1', 'turn-0001.json'), 'utf8'), '{\n  "schemaVersion": 5,\n  "note": "中文"\n}\n');
  assert.equal(readFileSync(join(directory, 'ctx-1', 'turn-0002.json'), 'utf8'), '[\n  1,\n  2\n]\n');
  assert.equal(statSync(directory).mode & 0o777, 0o700);
  assert.equal(statSync(join(directory, 'ctx-1')).mode & 0o777, 0o700);
  for (const name of readdirSync(join(directory, 'ctx-1'))) assert.equal(statSync(join(directory, 'ctx-1', name)).mode & 0o777, 0o600, name);
  assert.equal(traceFilePath({ directory, contextId: 'ctx-1', turn: 1, recoveryAttempt: 1 }), join(directory, 'ctx-1', 'turn-0001-recovery-1.json'));
});

test('lastTurn names the highest turn written for a context, 0 when none', async () => {
  const directory = freshDirectory();
  const sink = createFileTraceSink({ directory });
  assert.equal(await sink.lastTurn!('ctx-1'), 0);
  await sink.write({ contextId: 'ctx-1', turn: 2, body: {} });
  await sink.write({ contextId: 'ctx-1', turn: 12, recoveryAttempt: 1, body: {} });
  await sink.write({ contextId: 'ctx-2', turn: 40, body: {} });
  writeFileSync(join(directory, 'ctx-1', 'notes.txt'), 'not a trace');
  assert.equal(await sink.lastTurn!('ctx-1'), 12);
});

test('an existing file is never overwritten: the second write fails naming it', async () => {
  const directory = freshDirectory();
  const sink = createFileTraceSink({ directory });
  await sink.write({ contextId: 'ctx', turn: 3, body: { first: true } });
  const path = join(directory, 'ctx', 'turn-0003.json');
  await assert.rejects(
    sink.write({ contextId: 'ctx', turn: 3, body: { second: true } }),
    (error: unknown) => StoreInputError.isInstance(error) && error.code === 'TRACE_FILE_EXISTS' && error.culprit === path,
  );
  assert.equal(readFileSync(path, 'utf8'), '{\n  "first": true\n}\n');
  // No temporary files are left behind.
  assert.deepEqual(readdirSync(join(directory, 'ctx')), ['turn-0003.json']);
});

test('parallel writes of the same turn: exactly one wins, the rest fail, the file is whole', async () => {
  const directory = freshDirectory();
  const sink = createFileTraceSink({ directory });
  const bodies = Array.from({ length: 20 }, (_, index) => ({ writer: index, padding: 'x'.repeat(100_000) }));
  const results = await Promise.allSettled(bodies.map((body) => sink.write({ contextId: 'ctx', turn: 1, body })));
  assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
  const written = JSON.parse(readFileSync(join(directory, 'ctx', 'turn-0001.json'), 'utf8')) as { writer: number; padding: string };
  assert.deepEqual(written, bodies[written.writer]);
  assert.deepEqual(readdirSync(join(directory, 'ctx')), ['turn-0001.json']);
});

test('context ids with separators and dot-dot stay inside the trace directory', async () => {
  const root = temporaryDirectory('strata-trace-');
  const directory = join(root, 'traces');
  const sink = createFileTraceSink({ directory });
  await sink.write({ contextId: '../escape', turn: 1, body: {} });
  await sink.write({ contextId: '..', turn: 1, body: {} });
  await sink.write({ contextId: 'a/b', turn: 1, body: {} });
  assert.deepEqual(readdirSync(root), ['traces']);
  assert.deepEqual(readdirSync(directory).sort(), ['%2E.', '%2E.%2Fescape', 'a%2Fb']);
});

test('a body that is not JSON is refused before anything is written', async () => {
  const directory = freshDirectory();
  const sink = createFileTraceSink({ directory });
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  for (const body of [cyclic, undefined, 10n]) {
    await assert.rejects(sink.write({ contextId: 'ctx', turn: 1, body }), (error: unknown) => StoreInputError.isInstance(error) && error.code === 'TRACE_BODY_INVALID');
  }
  await sink.write({ contextId: 'ctx', turn: 1, body: { ok: true } });
});

test('an existing trace directory open to others is tightened to 0700, its files kept', async () => {
  for (const mode of [0o777, 0o755, 0o710]) {
    const directory = freshDirectory();
    mkdirSync(directory);
    chmodSync(directory, mode);
    writeFileSync(join(directory, 'README'), 'kept');
    // A context directory left open by someone else is tightened too.
    mkdirSync(join(directory, 'ctx'));
    chmodSync(join(directory, 'ctx'), 0o777);
    await createFileTraceSink({ directory }).write({ contextId: 'ctx', turn: 1, body: {} });
    assert.equal(statSync(directory).mode & 0o777, 0o700, mode.toString(8));
    assert.equal(statSync(join(directory, 'ctx')).mode & 0o777, 0o700, mode.toString(8));
    assert.equal(readFileSync(join(directory, 'README'), 'utf8'), 'kept');
  }
  assert.equal(defaultTraceDirectory('/data'), '/data/context-traces');
});

test('an existing directory closed to others is left as it is (only group and other bits are removed)', async () => {
  const directory = freshDirectory();
  mkdirSync(directory);
  // Write and search for the owner, enough to add files; no read bit.
  chmodSync(directory, 0o300);
  await createFileTraceSink({ directory }).write({ contextId: 'ctx', turn: 1, body: {} });
  assert.equal(statSync(directory).mode & 0o777, 0o300);
});

// /proc/1 is mode 0555 and refuses chmod even to root: an open directory that cannot be tightened.
// The timeout is a guard: without the refusal, Node's recursive mkdir spins on /proc instead of failing.
test('an open trace directory that cannot be tightened is refused, naming it', { skip: !existsSync('/proc/1') && 'needs Linux /proc', timeout: 20_000 }, async () => {
  await assert.rejects(
    createFileTraceSink({ directory: '/proc/1' }).write({ contextId: 'ctx', turn: 1, body: {} }),
    (error: unknown) =>
      StoreAccessError.isInstance(error) && error.code === 'STORE_INSECURE' && error.location === '/proc/1' && error.kind === 'configuration' && error.message.includes('mode 0555'),
  );
  assert.equal(existsSync('/proc/1/ctx'), false);
});
