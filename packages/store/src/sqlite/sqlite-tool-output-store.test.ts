import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { toolOutputStoreContract } from '../testing/tool-output-store-contract.js';
import { openSqliteToolOutputStore } from './sqlite-tool-output-store.js';
import { temporaryDirectory } from '../testing/temporary-directory.js';
import { StoreInputError } from '../errors/store-input-error.js';
import { derivedToolOutputId } from '../tool-output-body.js';

const path = join(temporaryDirectory('strata-sqlite-outputs-'), 'strata.db');
toolOutputStoreContract({
  name: 'SQLite ToolOutputStore',
  open: () => openSqliteToolOutputStore({ path }),
  openDerived: () => openSqliteToolOutputStore({ path, newToolOutputId: derivedToolOutputId }),
  childOpen: `store.openSqliteToolOutputStore({ path: ${JSON.stringify(path)} })`,
  pieces: {
    count: async () => withDatabase((database) => database.prepare<[], { n: number }>('SELECT count(*) AS n FROM strata_tool_output_pieces').get()!.n),
    damage: async (id, seq) =>
      withDatabase((database) => void database.prepare('UPDATE strata_tool_output_pieces SET bytes = ? WHERE output_id = ? AND seq = ?').run(Buffer.from('tampered'), id, seq)),
  },
});

function withDatabase<T>(work: (database: Database.Database) => T): T {
  const database = new Database(path);
  try {
    return work(database);
  } finally {
    database.close();
  }
}

test('derived ids: a body of several pieces put again under its call is the same output, and its pieces stay whole; another body under the call is refused', async () => {
  const store = openSqliteToolOutputStore({ path: join(temporaryDirectory('strata-sqlite-derived-'), 'strata.db'), newToolOutputId: derivedToolOutputId });
  try {
    const body = 'line of a long log\n'.repeat(40_000); // 760,000 characters: three pieces
    const output = { contextId: 'run', toolCallId: 'call_1', toolName: 'read_log', body };
    const first = await store.put(output);
    assert.deepEqual(await store.put(output), first);
    assert.equal((await store.get(first.id))?.body, body, 'the stored body reads back whole after the repeated put');
    await assert.rejects(store.put({ ...output, body: 'another body' }), (error: unknown) => StoreInputError.isInstance(error) && error.code === 'STORE_INVALID_ID');
    assert.equal((await store.get(first.id))?.body, body);
    assert.equal((await store.list!('run')).length, 1);
  } finally {
    await store.close();
  }
});
