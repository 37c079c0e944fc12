import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runBlackboardStoreContract, runIndexedAssemblyProperty } from '@strata/testing';
import { openSqliteBlackboardStore } from './sqlite-blackboard-store.js';

const directory = mkdtempSync(join(tmpdir(), 'strata-sqlite-blackboard-'));
test.after(() => rmSync(directory, { recursive: true, force: true }));

let boards = 0;
runBlackboardStoreContract({
  name: 'SQLite BlackboardStore',
  // Every board shares one file: the contract also proves boards are kept apart.
  create: async ({ now }) => openSqliteBlackboardStore({ path: join(directory, 'shared.db'), boardId: `board-${(boards += 1)}`, now }),
});

runIndexedAssemblyProperty({
  name: 'SQLite BlackboardStore',
  create: async () => openSqliteBlackboardStore({ path: join(directory, 'property.db'), boardId: `property-${(boards += 1)}` }),
});

test('SQLite BlackboardStore: entries and the head survive reopening; boards are separate', async () => {
  const path = join(directory, 'reopen.db');
  const first = openSqliteBlackboardStore({ path, boardId: 'run-1' });
  await first.commit({ author: { kind: 'worker', name: 'narrator' }, writes: [{ tag: '运行.叙述', content: '一', role: 'final' }, { tag: '运行.草稿', content: '二' }] });
  await first.commit({ author: { kind: 'runtime' }, remove: [2], writes: [] });
  await first.close();
  const other = openSqliteBlackboardStore({ path, boardId: 'run-2' });
  assert.equal(await other.headRevision(), 0);
  await other.close();
  const again = openSqliteBlackboardStore({ path, boardId: 'run-1' });
  try {
    assert.equal(await again.headRevision(), 2);
    assert.deepEqual((await again.query(['**'])).map((entry) => [entry.tag, entry.content, entry.role, entry.author]), [
      ['运行.叙述', '一', 'final', { kind: 'worker', name: 'narrator' }],
    ]);
    // The removed revision 2 is never reused.
    assert.equal((await again.commit({ author: { kind: 'user' }, writes: [{ tag: '用户.最新输入', content: '三' }] })).revision, 3);
  } finally {
    await again.close();
  }
});

test('SQLite BlackboardStore: a storage failure in the middle of a commit rolls the whole commit back', async () => {
  const path = join(directory, 'failing.db');
  const store = openSqliteBlackboardStore({ path, boardId: 'run' });
  await store.commit({ author: { kind: 'user' }, writes: [{ tag: '世界.蓝图', content: '雾港' }] });
  // A trigger stands in for a disk or constraint failure on the second write.
  const saboteur = new Database(path);
  saboteur.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON strata_blackboard_entries WHEN NEW.content = 'poison' BEGIN SELECT RAISE(ABORT, 'refused'); END;`);
  saboteur.close();
  try {
    const before = await store.query(['**']);
    await assert.rejects(
      store.commit({
        author: { kind: 'worker', name: 'narrator' },
        remove: [1],
        writes: [{ tag: '运行.叙述', content: '先写入' }, { tag: '运行.叙述', content: 'poison' }],
      }),
      (error: Error) => error.name === 'StoreAccessError' && /refused/.test(error.message),
    );
    assert.deepEqual(await store.query(['**']), before);
    assert.equal(await store.headRevision(), 1);
  } finally {
    await store.close();
  }
});

test('SQLite BlackboardStore: prefix patterns count characters, not bytes or UTF-16 units', async () => {
  const store = openSqliteBlackboardStore({ path: join(directory, 'unicode.db'), boardId: 'run' });
  try {
    await store.commit({
      author: { kind: 'user' },
      writes: [
        { tag: '😀.a', content: '1' },
        { tag: '😀', content: '2' },
        { tag: '😀😀.b', content: '3' },
        { tag: '设计.开场白#1', content: '4' },
      ],
    });
    const contents = async (pattern: string) => (await store.query([pattern])).map((entry) => entry.content).join('');
    assert.equal(await contents('😀.*'), '1');
    assert.equal(await contents('😀*'), '13');
    assert.equal(await contents('设计.开场白#*'), '4');
  } finally {
    await store.close();
  }
});
