import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStores } from '../open-stores.js';
import { sessionStoreContract } from '../testing/session-store-contract.js';
import { createPostgresSessionStore } from './postgres-session-store.js';
import { dropSchema, postgresTestTarget } from '@strata/testing';

const target = postgresTestTarget();
const { url, schema } = target;

sessionStoreContract({
  name: 'PostgreSQL SessionStore',
  ...(url === undefined ? { skip: target.skip } : {}),
  open: () => createPostgresSessionStore({ connectionString: url!, schema: schema! }),
  childOpen: `store.createPostgresSessionStore({ connectionString: ${JSON.stringify(url)}, schema: ${JSON.stringify(schema)} })`,
});

if (url !== undefined) after(() => dropSchema(url, schema));

if (url !== undefined) {
  test('openStores(postgres://...?schema=) shares one pool between both stores, and data survives a new pool', async () => {
    const withSchema = new URL(url);
    withSchema.searchParams.set('schema', `${schema}_url`);
    let stores = await openStores(withSchema.toString());
    try {
      const ref = await stores.toolOutputs.put({ contextId: 'ctx-url', toolCallId: 'call', toolName: 'tool', body: '经由 URL' });
      await stores.sessions.append('ctx-url', [{ role: 'user', content: 'via URL' }]);
      await stores.close();
      stores = await openStores(withSchema.toString());
      assert.equal((await stores.toolOutputs.get(ref.id))?.body, '经由 URL');
      assert.deepEqual((await stores.sessions.load('ctx-url'))?.messages, [{ role: 'user', content: 'via URL' }]);
    } finally {
      await stores.close();
      await dropSchema(url, `${schema}_url`);
    }
  });
}
