import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { resolveContextConfiguration, type ContextTraceV5, type Timers } from '@strata/context';
import { loadProviderRules, dropSchema, postgresTestTarget } from '@strata/testing';
import { createModelClient, ScriptedLanguageModel } from '@strata/model';
import { createPostgresStores } from '@strata/store';
import { ToolRegistry } from '@strata/tools';
import { createAgentRun } from './create-agent-run.js';
import { assertProviderSafe } from './testing/run-fixtures.js';

const rules = await loadProviderRules();
const target = postgresTestTarget();
if (target.url !== undefined) after(() => dropSchema(target.url, target.schema));

test('PostgreSQL store: a session write whose backend is terminated mid-run is retried, and the run goes on to its answer', { skip: target.skip }, async () => {
  const { url, schema } = target as { url: string; schema: string };
  const applicationName = `strata_run_${schema}`;
  const withName = new URL(url);
  withName.searchParams.set('application_name', applicationName);
  const waits: number[] = [];
  // The store's backoff waits are recorded and end at once.
  const timers: Timers = { set: (callback, delayMs) => (waits.push(delayMs), setImmediate(callback)), clear: (handle) => clearImmediate(handle as NodeJS.Immediate) };
  const stores = createPostgresStores({ connectionString: withName.toString(), schema, retry: { timers } });
  const locker = new pg.Client({ connectionString: url });
  const watcher = new pg.Client({ connectionString: url });
  await Promise.all([locker.connect(), watcher.connect()]);
  let terminated: Promise<boolean> | undefined;
  try {
    const registry = new ToolRegistry();
    registry.register({
      name: 'lookup',
      description: 'Looks a page up.',
      parameters: { type: 'object', properties: { page: { type: 'integer' } } },
      execute: async () => {
        // The run's next session access waits on this lock; while it waits, its backend is terminated, then the lock goes.
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${pg.escapeIdentifier(schema)}.strata_sessions IN ACCESS EXCLUSIVE MODE`);
        terminated = (async () => {
          let done = false;
          for (let look = 0; look < 20_000 && !done; look += 1) {
            const rows = (await watcher.query<{ ok: boolean }>(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [applicationName])).rows;
            done = rows.some((row) => row.ok);
          }
          await locker.query('COMMIT');
          return done;
        })();
        return { content: 'Page 1: the sample was stable at 21.5 C.' };
      },
    });
    const model = new ScriptedLanguageModel([{ parts: [{ type: 'tool-call', id: 'call_1', name: 'lookup', input: { page: 1 } }] }, { parts: [{ type: 'text', text: 'It stayed at 21.5 C.' }] }]);
    const traces: ContextTraceV5[] = [];
    const result = await createAgentRun({ id: 'tester' }, {
      model: createModelClient({ model }),
      tools: registry,
      outputStore: stores.toolOutputs,
      sessionStore: stores.sessions,
      traceSink: { write: async (document) => void traces.push(document.body as ContextTraceV5) },
      configuration: resolveContextConfiguration({}),
      now: () => 0,
    }, { contextId: 'terminated', prompt: 'Look up page 1.' }).execute();
    assert.ok(terminated !== undefined && (await terminated), 'a session access of the run was found waiting and terminated');
    assert.equal(result.stopReason, 'completed', String(result.error));
    assert.ok(waits.length >= 1, 'the store waited before trying again');
    const stored = (await stores.sessions.load('terminated'))!.messages;
    assert.deepEqual(stored.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant'], 'every message once');
    assert.equal(stored.at(-1)!.content, 'It stayed at 21.5 C.');
    assertProviderSafe(rules, traces);
  } finally {
    await terminated?.catch(() => undefined);
    await locker.query('ROLLBACK').catch(() => undefined);
    await Promise.all([locker.end(), watcher.end(), stores.close()]);
  }
});
