import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { BlackboardConflictError } from '@strata/blackboard';
import { runBlackboardStoreContract, runIndexedAssemblyProperty, dropSchema, postgresTestTarget } from '@strata/testing';
import { StoreAccessError } from '../errors/store-access-error.js';
import { openPostgresBlackboardStore } from './postgres-blackboard-store.js';

const target = postgresTestTarget();

if (target.url === undefined) {
  console.log(`# notice: PostgreSQL BlackboardStore skipped: ${target.skip}`);
  test('PostgreSQL BlackboardStore', { skip: target.skip }, () => undefined);
} else {
  const { url, schema } = target;
  after(() => dropSchema(url, schema));

  let boards = 0;
  runBlackboardStoreContract({
    name: 'PostgreSQL BlackboardStore',
    // Every board shares one schema: the contract also proves boards are kept apart.
    create: async ({ now }) => openPostgresBlackboardStore({ connectionString: url, schema, boardId: `board-${(boards += 1)}`, now }),
  });

  runIndexedAssemblyProperty({
    name: 'PostgreSQL BlackboardStore',
    create: async () => openPostgresBlackboardStore({ connectionString: url, schema, boardId: `property-${(boards += 1)}` }),
    runs: 25,
  });

  test('PostgreSQL BlackboardStore: workers racing revision-guarded commits on one board: exactly one wins each head', async () => {
    const workers = Array.from({ length: 6 }, () => openPostgresBlackboardStore({ connectionString: url, schema, boardId: 'race', maxConnections: 2 }));
    try {
      await workers[0]!.commit({ author: { kind: 'user' }, writes: [{ tag: '世界.蓝图', content: '雾港' }] });
      const outcomes = await Promise.allSettled(
        workers.map((store, index) => store.commit({ author: { kind: 'worker', name: `w${index}` }, writes: [{ tag: '运行.叙述', content: `${index}` }], expectedRevision: 1 })),
      );
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      assert.equal(won.length, 1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') assert.ok(BlackboardConflictError.isInstance(outcome.reason) && outcome.reason.actualRevision === 2);
      }
      // Unguarded commits from every worker all land, each with its own revision.
      const results = await Promise.all(workers.map((store, index) => store.commit({ author: { kind: 'runtime' }, writes: [{ tag: '运行.事件流', content: `${index}` }, { tag: '运行.事件流', content: `${index}b` }] })));
      assert.deepEqual(results.map((result) => result.revision).sort((left, right) => left - right), [4, 6, 8, 10, 12, 14]);
      assert.equal(await workers[5]!.headRevision(), 14);
      assert.deepEqual((await workers[3]!.query(['**'])).map((entry) => entry.revision), Array.from({ length: 14 }, (_, index) => index + 1));
    } finally {
      await Promise.all(workers.map((store) => store.close()));
    }
  });

  test('PostgreSQL BlackboardStore: a storage failure in the middle of a commit rolls the whole commit back', async () => {
    const store = openPostgresBlackboardStore({ connectionString: url, schema, boardId: 'failing' });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await store.commit({ author: { kind: 'user' }, writes: [{ tag: '世界.蓝图', content: '雾港' }] });
      // A trigger stands in for a disk or constraint failure on the second write.
      const table = `${pg.escapeIdentifier(schema)}.strata_blackboard_entries`;
      await client.query(`CREATE FUNCTION ${pg.escapeIdentifier(schema)}.refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.content = 'poison' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
      await client.query(`CREATE TRIGGER refuse_poison BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${pg.escapeIdentifier(schema)}.refuse_poison()`);
      const before = await store.query(['**']);
      await assert.rejects(
        store.commit({ author: { kind: 'worker', name: 'narrator' }, remove: [1], writes: [{ tag: '运行.叙述', content: '先写入' }, { tag: '运行.叙述', content: 'poison' }] }),
        (error: unknown) => StoreAccessError.isInstance(error) && /refused/.test(error.message),
      );
      assert.deepEqual(await store.query(['**']), before);
      assert.equal(await store.headRevision(), 1);
      await client.query(`DROP TRIGGER refuse_poison ON ${table}`);
    } finally {
      await client.end();
      await store.close();
    }
  });

  test('PostgreSQL BlackboardStore: prefix patterns count characters, not bytes or UTF-16 units', async () => {
    const store = openPostgresBlackboardStore({ connectionString: url, schema, boardId: 'unicode' });
    try {
      await store.commit({ author: { kind: 'user' }, writes: [{ tag: '😀.a', content: '1' }, { tag: '😀', content: '2' }, { tag: '😀😀.b', content: '3' }, { tag: '设计.开场白#1', content: '4' }] });
      const contents = async (pattern: string) => (await store.query([pattern])).map((entry) => entry.content).join('');
      assert.equal(await contents('😀.*'), '1');
      assert.equal(await contents('😀*'), '13');
      assert.equal(await contents('设计.开场白#*'), '4');
    } finally {
      await store.close();
    }
  });
}
