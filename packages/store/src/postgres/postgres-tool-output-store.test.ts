import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { StoreAccessError } from '../errors/store-access-error.js';
import { toolOutputStoreContract } from '../testing/tool-output-store-contract.js';
import { derivedToolOutputId } from '../tool-output-body.js';
import { createPostgresToolOutputStore } from './postgres-tool-output-store.js';
import { dropSchema, postgresTestTarget } from '@strata/testing';

const target = postgresTestTarget();
const { url, schema } = target;

toolOutputStoreContract({
  name: 'PostgreSQL ToolOutputStore',
  ...(url === undefined ? { skip: target.skip } : {}),
  open: () => createPostgresToolOutputStore({ connectionString: url!, schema: schema! }),
  openDerived: () => createPostgresToolOutputStore({ connectionString: url!, schema: schema!, newToolOutputId: derivedToolOutputId }),
  childOpen: `store.createPostgresToolOutputStore({ connectionString: ${JSON.stringify(url)}, schema: ${JSON.stringify(schema)} })`,
  pieces: {
    count: () => withClient(async (client) => Number((await client.query(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(schema!)}.strata_tool_output_pieces`)).rows[0].n)),
    damage: (id, seq) =>
      withClient(async (client) => {
        await client.query(`UPDATE ${pg.escapeIdentifier(schema!)}.strata_tool_output_pieces SET bytes = $1 WHERE output_id = $2 AND seq = $3`, [Buffer.from('tampered'), id, seq]);
      }),
  },
});

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

if (url !== undefined) {
  after(() => dropSchema(url, schema));

  test('PostgreSQL: a body changed behind the store reads as STORE_CORRUPTED; the others stay readable', async () => {
    const store = createPostgresToolOutputStore({ connectionString: url, schema });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const damaged = await store.put({ contextId: 'ctx-corrupt', toolCallId: 'call_1', toolName: 'tool', body: 'original body' });
      const intact = await store.put({ contextId: 'ctx-corrupt', toolCallId: 'call_2', toolName: 'tool', body: 'intact body' });
      await client.query(`UPDATE ${pg.escapeIdentifier(schema)}.strata_tool_outputs SET body = $1 WHERE id = $2`, [Buffer.from('tampered body'), damaged.id]);
      await assert.rejects(store.get(damaged.id), (error: unknown) => StoreAccessError.isInstance(error) && error.code === 'STORE_CORRUPTED' && error.message.includes(damaged.id));
      assert.equal((await store.get(intact.id))?.body, 'intact body');
    } finally {
      await client.end();
      await store.close();
    }
  });

  test('PostgreSQL: stores starting together on a new schema apply each migration once', async () => {
    const fresh = `${schema}_race`;
    const stores = Array.from({ length: 6 }, () => createPostgresToolOutputStore({ connectionString: url, schema: fresh }));
    try {
      const refs = await Promise.all(stores.map((store, index) => store.put({ contextId: 'ctx-race', toolCallId: `call_${index}`, toolName: 'tool', body: `body ${index}` })));
      assert.equal((await stores[0]!.get(refs[5]!.id))?.body, 'body 5');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const rows = (await client.query(`SELECT component, version FROM ${pg.escapeIdentifier(fresh)}.strata_migrations ORDER BY component, version`)).rows;
        assert.deepEqual(rows, [
          { component: 'tool-outputs', version: 1 },
          { component: 'tool-outputs', version: 2 },
        ]);
      } finally {
        await client.end();
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await dropSchema(url, fresh);
    }
  });

  test('PostgreSQL: a database that does not exist is STORE_MISSING, naming it without the password', async () => {
    const missing = new URL(url);
    missing.pathname = '/strata_no_such_database';
    const store = createPostgresToolOutputStore({ connectionString: missing.toString(), schema });
    try {
      await assert.rejects(store.get('out_x'), (error: unknown) => {
        assert.ok(StoreAccessError.isInstance(error));
        assert.equal(error.code, 'STORE_MISSING');
        assert.match(error.location, /strata_no_such_database/);
        // The user name may equal the password (strata:strata): look for the credential pair.
        if (missing.password !== '') assert.equal(error.message.includes(`:${missing.password}@`), false);
        assert.match(error.location, /:\*\*\*@|^postgres:\/\/[^:@]*@/);
        return true;
      });
    } finally {
      await store.close();
    }
  });
}

test('PostgreSQL: a server nobody listens on is STORE_UNREACHABLE, naming it without the password', async () => {
  // Port 9 (discard) on loopback: refused at once on a machine without that service.
  const store = createPostgresToolOutputStore({ connectionString: 'postgres://someone:s3cret-pw@127.0.0.1:9/nowhere', connectionTimeoutMs: 2_000 });
  try {
    await assert.rejects(store.put({ contextId: 'ctx', toolCallId: 'call', toolName: 'tool', body: 'x' }), (error: unknown) => {
      assert.ok(StoreAccessError.isInstance(error));
      assert.equal(error.code, 'STORE_UNREACHABLE');
      assert.equal(error.kind, 'configuration');
      assert.match(error.location, /127\.0\.0\.1:9\/nowhere/);
      assert.equal(error.message.includes('s3cret-pw'), false);
      assert.equal(error.location.includes('s3cret-pw'), false);
      return true;
    });
  } finally {
    await store.close();
  }
});
