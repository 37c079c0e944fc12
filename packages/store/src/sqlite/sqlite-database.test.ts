import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { StoreAccessError } from '../errors/store-access-error.js';
import { startStoreChild } from '../testing/child-process.js';
import { openSqliteToolOutputStore } from './sqlite-tool-output-store.js';
import { openSqliteSessionStore } from './sqlite-session-store.js';
import { temporaryDirectory } from '../testing/temporary-directory.js';

const freshPath = (): string => join(temporaryDirectory('strata-sqlite-'), 'strata.db');

const accessError = (code: string, path: string) => (error: unknown) => {
  assert.ok(StoreAccessError.isInstance(error), `expected a StoreAccessError, got ${String(error)}`);
  assert.equal(error.code, code);
  assert.equal(error.location, path);
  assert.ok(error.message.includes(path), `message names the file: ${error.message}`);
  return true;
};

test('a new file is created mode 0600, in WAL mode, with each migration recorded once', async () => {
  const path = freshPath();
  const outputs = openSqliteToolOutputStore({ path });
  const sessions = openSqliteSessionStore({ path });
  const again = openSqliteToolOutputStore({ path });
  await Promise.all([outputs.close(), sessions.close(), again.close()]);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const raw = new Database(path, { readonly: true });
  try {
    assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
    assert.deepEqual(raw.prepare('SELECT component, version FROM strata_migrations ORDER BY component, version').all(), [
      { component: 'sessions', version: 1 },
      { component: 'sessions', version: 2 },
      { component: 'tool-outputs', version: 1 },
      { component: 'tool-outputs', version: 2 },
    ]);
  } finally {
    raw.close();
  }
});

test('a file of garbage is STORE_CORRUPTED naming the file, and the file is left untouched', () => {
  const path = freshPath();
  const garbage = Buffer.from(Array.from({ length: 8192 }, (_, index) => (index * 7919 + 13) % 256));
  writeFileSync(path, garbage);
  assert.throws(() => openSqliteToolOutputStore({ path }), accessError('STORE_CORRUPTED', path));
  assert.throws(() => openSqliteSessionStore({ path }), accessError('STORE_CORRUPTED', path));
  assert.ok(readFileSync(path).equals(garbage));
});

test('garbage over the header of a used store is STORE_CORRUPTED at open', async () => {
  const path = freshPath();
  const store = openSqliteToolOutputStore({ path });
  await store.put({ contextId: 'ctx', toolCallId: 'call', toolName: 'tool', body: 'kept' });
  await store.close();
  const bytes = readFileSync(path);
  bytes.fill(0xa5, 0, 100);
  writeFileSync(path, bytes);
  assert.throws(() => openSqliteToolOutputStore({ path }), accessError('STORE_CORRUPTED', path));
});

test('a damaged body reads as STORE_CORRUPTED (never a wrong body); other bodies and new puts are fine', async () => {
  const path = freshPath();
  const marker = 'DAMAGE-ME-'.repeat(300);
  let store = openSqliteToolOutputStore({ path });
  const damaged = await store.put({ contextId: 'ctx', toolCallId: 'call_1', toolName: 'tool', body: marker });
  const intact = await store.put({ contextId: 'ctx', toolCallId: 'call_2', toolName: 'tool', body: '中文 intact body' });
  await store.close();
  const bytes = readFileSync(path);
  const at = bytes.indexOf(Buffer.from(marker.slice(0, 200)));
  assert.ok(at >= 0, 'the body is on disk after close');
  bytes.write('XXXXXXXX', at + 1000, 'latin1');
  writeFileSync(path, bytes);
  store = openSqliteToolOutputStore({ path });
  try {
    await assert.rejects(store.get(damaged.id), (error: unknown) => accessError('STORE_CORRUPTED', path)(error) && (error as Error).message.includes(damaged.id));
    assert.equal((await store.get(intact.id))?.body, '中文 intact body');
    const fresh = await store.put({ contextId: 'ctx', toolCallId: 'call_3', toolName: 'tool', body: 'after the damage' });
    assert.equal((await store.get(fresh.id))?.body, 'after the damage');
  } finally {
    await store.close();
  }
});

test('a missing database or directory is STORE_MISSING; a directory in its place is STORE_UNREADABLE', () => {
  const directory = temporaryDirectory('strata-sqlite-');
  const absent = join(directory, 'absent.db');
  assert.throws(() => openSqliteToolOutputStore({ path: absent, fileMustExist: true }), accessError('STORE_MISSING', absent));
  assert.equal(existsSync(absent), false);
  const inMissingDirectory = join(directory, 'no-such-directory', 'strata.db');
  assert.throws(() => openSqliteSessionStore({ path: inMissingDirectory }), accessError('STORE_MISSING', inMissingDirectory));
  const aDirectory = join(directory, 'a-directory.db');
  mkdirSync(aDirectory);
  assert.throws(() => openSqliteToolOutputStore({ path: aDirectory }), accessError('STORE_UNREADABLE', aDirectory));
});

test('a put blocked past the busy timeout is STORE_BUSY; earlier bodies stay readable and later puts work', async () => {
  const path = freshPath();
  const store = openSqliteToolOutputStore({ path, busyTimeoutMs: 50 });
  const kept = await store.put({ contextId: 'ctx', toolCallId: 'call_1', toolName: 'tool', body: 'kept body' });
  const blocker = new Database(path);
  try {
    blocker.exec('BEGIN IMMEDIATE');
    await assert.rejects(store.put({ contextId: 'ctx', toolCallId: 'call_2', toolName: 'tool', body: 'blocked' }), accessError('STORE_BUSY', path));
    assert.equal((await store.get(kept.id))?.body, 'kept body');
    blocker.exec('ROLLBACK');
    const later = await store.put({ contextId: 'ctx', toolCallId: 'call_3', toolName: 'tool', body: 'later' });
    assert.equal((await store.get(later.id))?.body, 'later');
    assert.equal(blocker.prepare('SELECT count(*) FROM strata_tool_outputs').pluck().get(), 2);
  } finally {
    blocker.close();
    await store.close();
  }
});

test('several stores on one file in one process see each other; closing one leaves the others working', async () => {
  const path = freshPath();
  const stores = [openSqliteToolOutputStore({ path }), openSqliteToolOutputStore({ path }), openSqliteToolOutputStore({ path })];
  const refs = await Promise.all(stores.map((store, index) => store.put({ contextId: 'ctx', toolCallId: `call_${index}`, toolName: 'tool', body: `run ${index}` })));
  await stores[0]!.close();
  for (const [index, ref] of refs.entries()) {
    assert.equal((await stores[1]!.get(ref.id))?.body, `run ${index}`);
    assert.equal((await stores[2]!.get(ref.id))?.body, `run ${index}`);
  }
  await stores[1]!.close();
  await stores[2]!.close();
});

test('a process killed mid-write loses only its open transaction, even with garbage after the WAL', async () => {
  const path = freshPath();
  const child = startStoreChild({
    childOpen: `store.openSqliteToolOutputStore({ path: ${JSON.stringify(path)} })`,
    input: { path },
    exitWithoutClose: true,
    work: `const refs = [];
      for (let index = 0; index < 5; index += 1) refs.push(await opened.put({ contextId: 'ctx', toolCallId: 'committed_' + index, toolName: 'tool', body: 'committed ' + index + ' 中文'.repeat(index * 1000) }));
      process.stdout.write(JSON.stringify({ result: refs }) + '\\n');
      const { default: Database } = await import('better-sqlite3');
      const raw = new Database(input.path);
      raw.exec('BEGIN IMMEDIATE');
      // 20 MB: more than the page cache, so uncommitted pages reach the WAL before the kill.
      raw.prepare("INSERT INTO strata_tool_outputs (id, context_id, tool_call_id, tool_name, encoding, body, sha256, created_at) VALUES ('out_uncommitted', 'ctx', 'torn', 'tool', 'utf8', ?, 'x', 'now')").run(Buffer.alloc(20_000_000, 0x41));
      process.kill(process.pid, 'SIGKILL');`,
  });
  await child.ready;
  child.go();
  await assert.rejects(child.result, /SIGKILL/);
  assert.ok(existsSync(`${path}-wal`), 'the killed process left its WAL behind');
  appendFileSync(`${path}-wal`, Buffer.from('torn tail: not a WAL frame'.repeat(100)));
  const store = openSqliteToolOutputStore({ path });
  try {
    const raw = new Database(path, { readonly: true });
    const rows = raw.prepare('SELECT tool_call_id, body FROM strata_tool_outputs ORDER BY tool_call_id').all() as Array<{ tool_call_id: string; body: Buffer }>;
    raw.close();
    assert.deepEqual(
      rows.map((row) => row.tool_call_id),
      Array.from({ length: 5 }, (_, index) => `committed_${index}`),
    );
    for (const row of rows) {
      const index = Number(row.tool_call_id.slice('committed_'.length));
      assert.equal(row.body.toString('utf8'), `committed ${index}${' 中文'.repeat(index * 1000)}`);
    }
    const fresh = await store.put({ contextId: 'ctx', toolCallId: 'after', toolName: 'tool', body: 'after the crash' });
    assert.equal((await store.get(fresh.id))?.body, 'after the crash');
  } finally {
    await store.close();
  }
});

test('a damaged session message is STORE_CORRUPTED naming the context and version; other versions load', async () => {
  const path = freshPath();
  const sessions = openSqliteSessionStore({ path });
  try {
    await sessions.append('ctx', [{ role: 'user', content: 'first' }]);
    await sessions.replace('ctx', [{ role: 'user', content: 'summary' }], { reason: 'token-pressure', replacedFromVersion: 1, replacedMessages: 1 });
    const raw = new Database(path);
    raw.prepare("UPDATE strata_session_messages SET message = '{\"ro' WHERE context_id = 'ctx' AND version = 1").run();
    raw.close();
    await assert.rejects(sessions.loadVersion('ctx', 1), (error: unknown) => accessError('STORE_CORRUPTED', path)(error) && /"ctx" version 1/.test((error as Error).message));
    assert.deepEqual((await sessions.load('ctx'))?.messages, [{ role: 'user', content: 'summary' }]);
  } finally {
    await sessions.close();
  }
});

test('four processes opening a new file at once each migrate safely, and their appends interleave without loss', async () => {
  const path = freshPath();
  const children = Array.from({ length: 4 }, (_, writer) =>
    startStoreChild({
      childOpen: `store.openSqliteStores({ path: ${JSON.stringify(path)} })`,
      input: { writer },
      work: `for (let index = 0; index < 20; index += 1) await opened.sessions.append('shared', [{ role: 'user', content: input.writer + ':' + index }]);`,
    }),
  );
  await Promise.all(children.map((child) => child.ready));
  for (const child of children) child.go();
  await Promise.all(children.map((child) => child.result));
  const sessions = openSqliteSessionStore({ path });
  try {
    const final = await sessions.load('shared');
    assert.equal(final?.version, 80);
    assert.deepEqual(await sessions.versions('shared'), Array.from({ length: 80 }, (_, index) => index + 1));
    for (let writer = 0; writer < 4; writer += 1) {
      assert.deepEqual(
        final?.messages.map((message) => message.content).filter((content) => content.startsWith(`${writer}:`)),
        Array.from({ length: 20 }, (_, index) => `${writer}:${index}`),
      );
    }
  } finally {
    await sessions.close();
  }
});

test('golden: the persisted SQLite layout (the latest schema version of each component)', async () => {
  const path = freshPath();
  const stores = [openSqliteToolOutputStore({ path }), openSqliteSessionStore({ path })];
  await Promise.all(stores.map((store) => store.close()));
  const raw = new Database(path, { readonly: true });
  try {
    const columns = (table: string): string[] =>
      (raw.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string; type: string; pk: number }>).map(
        (column) => `${column.name} ${column.type}${column.pk > 0 ? ` pk${column.pk}` : ''}`,
      );
    assert.deepEqual(columns('strata_migrations'), ['component TEXT pk1', 'version INTEGER pk2', 'name TEXT', 'applied_at TEXT']);
    assert.deepEqual(columns('strata_tool_outputs'), [
      'id TEXT pk1',
      'context_id TEXT',
      'tool_call_id TEXT',
      'tool_name TEXT',
      'encoding TEXT',
      'body BLOB',
      'sha256 TEXT',
      'created_at TEXT',
    ]);
    assert.deepEqual(columns('strata_sessions'), ['context_id TEXT pk1', 'latest_version INTEGER']);
    assert.deepEqual(columns('strata_session_versions'), ['context_id TEXT pk1', 'version INTEGER pk2', 'segment_start INTEGER', 'compaction TEXT', 'created_at TEXT', 'state TEXT']);
    assert.deepEqual(columns('strata_session_messages'), ['context_id TEXT pk1', 'version INTEGER pk2', 'position INTEGER pk3', 'message TEXT']);
  } finally {
    raw.close();
  }
});
