import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '@strata/context';
import { DEFAULT_DATABASE_FILE, openDefaultStores, openStores } from './open-stores.js';
import { temporaryDirectory } from './testing/temporary-directory.js';

const user = (content: string) => ({ role: 'user', content }) as const;

test('openDefaultStores keeps both stores in <dataDir>/strata.db, making the directory 0700, and they reopen', async () => {
  const dataDir = join(temporaryDirectory('strata-data-'), 'nested', 'data');
  let stores = openDefaultStores({ dataDir });
  assert.equal(stores.location, join(dataDir, DEFAULT_DATABASE_FILE));
  assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  const ref = await stores.toolOutputs.put({ contextId: 'ctx', toolCallId: 'call', toolName: 'tool', body: 'kept' });
  await stores.sessions.append('ctx', [user('hello')]);
  await stores.close();
  assert.ok(existsSync(join(dataDir, 'strata.db')));
  stores = openDefaultStores({ dataDir });
  try {
    assert.equal((await stores.toolOutputs.get(ref.id))?.body, 'kept');
    assert.deepEqual((await stores.sessions.load('ctx'))?.messages, [user('hello')]);
  } finally {
    await stores.close();
  }
});

test('openStores chooses the backend by URL', async () => {
  const memory = await openStores('memory:');
  assert.equal(memory.location, 'memory:');
  await memory.sessions.append('ctx', [user('in memory')]);
  await memory.close();

  const base = temporaryDirectory('strata-url-');
  const relative = await openStores('sqlite:relative.db', { baseDirectory: base });
  assert.equal(relative.location, join(base, 'relative.db'));
  await relative.close();
  const absolutePath = join(base, 'absolute.db');
  const absolute = await openStores(`sqlite://${absolutePath}`);
  assert.equal(absolute.location, absolutePath);
  await absolute.close();

  // PostgreSQL connects on first use: making the stores needs no server.
  const postgres = await openStores('postgresql://user:pw-secret@127.0.0.1:9/db?schema=tenant_a');
  assert.equal(postgres.location, 'postgresql://user:***@127.0.0.1:9/db (schema tenant_a)');
  await postgres.close();
});

test('a URL openStores cannot use is a ConfigurationError naming the setting', async () => {
  for (const url of ['mysql://root:pw@host/db', 'sqlite:', '', '/plain/path.db']) {
    await assert.rejects(openStores(url, { setting: 'STRATA_STORE_URL' }), (error: unknown) => {
      assert.ok(ConfigurationError.isInstance(error), String(error));
      assert.equal(error.setting, 'STRATA_STORE_URL');
      assert.equal(error.message.includes('pw'), false);
      return true;
    });
  }
  await assert.rejects(openStores('postgres://u@h/db?schema=Bad-Name'), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'schema');
});
