import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { Timers } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { dropSchema, postgresTestTarget } from '@strata/testing';
import { isTransientPostgresError, PostgresConnection, POSTGRES_RETRY_DEFAULTS } from './postgres-connection.js';
import type { PostgresPool, PostgresPoolClient } from './postgres-driver.js';
import { createPostgresSessionStore } from './postgres-session-store.js';

const failure = (code: string | undefined, message = `failed with ${code}`) => Object.assign(new Error(message), code === undefined ? {} : { code });

/** Timers that record each wait and fire it when the test says (or at once, with `immediate`). */
function recordingTimers(options: { immediate?: boolean } = {}) {
  const waits: Array<{ delayMs: number; fire: () => void }> = [];
  let notify: (() => void) | undefined;
  const timers: Timers = {
    set: (callback, delayMs) => {
      waits.push({ delayMs, fire: callback });
      notify?.();
      if (options.immediate) setImmediate(callback);
      return waits.length;
    },
    clear: () => undefined,
  };
  return { timers, waits, nextWait: () => new Promise<void>((resolve) => (notify = resolve)) };
}

/**
 * A pool whose clients answer each statement marked `-- work`, and each
 * COMMIT after the migration's, with `answer` (which may throw); every other
 * statement (the migration's, BEGIN, ROLLBACK) with no rows. Records releases.
 */
function scriptedPool(answer: (text: string) => unknown) {
  const releases: Array<Error | boolean | undefined> = [];
  const statements: string[] = [];
  let migrated = false;
  const client: PostgresPoolClient = {
    query: (async (text: string) => {
      statements.push(text);
      if (text.endsWith('-- work')) return { rows: [answer(text)], rowCount: 1 };
      if (text === 'COMMIT' && migrated) answer(text);
      if (text === 'COMMIT') migrated = true;
      return { rows: [], rowCount: 0 };
    }) as PostgresPoolClient['query'],
    release: (error) => void releases.push(error),
  };
  const pool: PostgresPool = { connect: async () => client, end: async () => undefined, options: { host: 'scripted', database: 'scripted' } };
  return { pool, releases, statements };
}

test('transient failures are told apart from the rest', () => {
  const transient = ['08000', '08003', '08006', '08001', '57P01', '57P02', '57P03', '40001', '40P01', 'ECONNRESET', 'EPIPE'];
  for (const code of transient) assert.equal(isTransientPostgresError(failure(code), { reached: false }), true, code);
  assert.equal(isTransientPostgresError(new Error('Connection terminated unexpectedly'), { reached: false }), true);
  assert.equal(isTransientPostgresError(new Error('Client has encountered a connection error and is not queryable'), { reached: false }), true);
  // A server that answered before and refuses now is restarting; one never reached is not there.
  assert.equal(isTransientPostgresError(failure('ECONNREFUSED'), { reached: true }), true);
  assert.equal(isTransientPostgresError(failure('ECONNREFUSED'), { reached: false }), false);
  const lasting = ['42P01', '42601', '23505', '28P01', '3D000', '42501', '53100', '25006', 'XX001', '55P03', 'ENOTFOUND'];
  for (const code of lasting) assert.equal(isTransientPostgresError(failure(code), { reached: true }), false, code);
  for (const value of [new Error('Connection terminated due to connection timeout'), new Error('timeout exceeded when trying to connect'), null, 'ECONNRESET', undefined, 42]) {
    assert.equal(isTransientPostgresError(value, { reached: true }), false, String(value));
  }
});

test('a terminated query runs again on a fresh client after the backoff, and only once the timer fires', async () => {
  let runs = 0;
  const { pool, releases } = scriptedPool(() => {
    runs += 1;
    if (runs === 1) throw failure('57P01', 'terminating connection due to administrator command');
    return { answer: runs };
  });
  const clock = recordingTimers();
  const connection = new PostgresConnection({ pool, component: 'test', migrations: [], retry: { timers: clock.timers, random: () => 0 } });
  const waiting = clock.nextWait();
  const result = connection.use('read', async (client) => (await client.query('SELECT 1 -- work')).rows[0]);
  await waiting;
  assert.equal(runs, 1, 'nothing runs again before the wait is over');
  assert.deepEqual(clock.waits.map((wait) => wait.delayMs), [POSTGRES_RETRY_DEFAULTS.initialDelayMs / 2]);
  clock.waits[0]!.fire();
  assert.deepEqual(await result, { answer: 2 });
  // The migration's client, the broken one (discarded), the one that answered.
  assert.deepEqual(releases, [false, true, false]);
});

test('attempts are bounded: a failure that never clears ends as the StoreAccessError of the last attempt, after growing waits', async () => {
  let runs = 0;
  const { pool } = scriptedPool(() => {
    runs += 1;
    throw new Error('Connection terminated unexpectedly');
  });
  const clock = recordingTimers({ immediate: true });
  const connection = new PostgresConnection({ pool, component: 'test', migrations: [], retry: { timers: clock.timers, random: () => 0, maxAttempts: 4, initialDelayMs: 100, maxDelayMs: 300 } });
  await assert.rejects(connection.use('read', (client) => client.query('SELECT 1 -- work')), (error: unknown) => {
    assert.ok(StoreAccessError.isInstance(error));
    assert.equal(error.code, 'STORE_UNREACHABLE');
    assert.match(error.message, /read \(attempt 4 of 4\) failed: Connection terminated unexpectedly/);
    return true;
  });
  assert.equal(runs, 4);
  // Equal jitter at its low end: half of 100, 200, 300 (the cap).
  assert.deepEqual(clock.waits.map((wait) => wait.delayMs), [50, 100, 150]);
});

test('a lasting failure is not retried, and maxAttempts 1 retries nothing', async () => {
  for (const [thrown, maxAttempts] of [[failure('42P01', 'relation "nope" does not exist'), undefined], [failure('57P01'), 1]] as const) {
    let runs = 0;
    const { pool } = scriptedPool(() => {
      runs += 1;
      throw thrown;
    });
    const clock = recordingTimers({ immediate: true });
    const connection = new PostgresConnection({ pool, component: 'test', migrations: [], retry: { timers: clock.timers, maxAttempts } });
    await assert.rejects(connection.use('read', (client) => client.query('SELECT 1 -- work')), StoreAccessError.isInstance);
    assert.equal(runs, 1);
    assert.deepEqual(clock.waits, []);
  }
  assert.throws(() => new PostgresConnection({ pool: scriptedPool(() => 1).pool, component: 'test', migrations: [], retry: { maxAttempts: 0 } }), /retry\.maxAttempts/);
});

test('a transaction: retried when it broke before COMMIT or COMMIT reported a rollback; not when the connection broke at COMMIT', async () => {
  for (const [commitFailure, expectedRuns, settles] of [
    [failure('40001', 'could not serialize access due to concurrent update'), 2, true],
    [failure('57P01', 'terminating connection due to administrator command'), 1, false],
    [new Error('Connection terminated unexpectedly'), 1, false],
  ] as const) {
    let runs = 0;
    let commits = 0;
    const { pool, statements } = scriptedPool((text) => {
      if (text === 'COMMIT') {
        commits += 1;
        if (commits === 1) throw commitFailure;
        return undefined;
      }
      runs += 1;
      return { written: runs };
    });
    const clock = recordingTimers({ immediate: true });
    const connection = new PostgresConnection({ pool, component: 'test', migrations: [], retry: { timers: clock.timers } });
    const outcome = connection.transaction('append', async (client) => (await client.query('INSERT 1 -- work')).rows[0]);
    if (settles) assert.deepEqual(await outcome, { written: 2 });
    else await assert.rejects(outcome, (error: unknown) => StoreAccessError.isInstance(error) && /COMMIT was sent; whether it took effect is unknown/.test(error.message));
    assert.equal(runs, expectedRuns, String(commitFailure.message));
    assert.ok(statements.includes('BEGIN'));
  }
  // Broken inside the work: rolled back, and run again.
  let runs = 0;
  const { pool, statements } = scriptedPool(() => {
    runs += 1;
    if (runs === 1) throw failure('40P01', 'deadlock detected');
    return { written: runs };
  });
  const connection = new PostgresConnection({ pool, component: 'test', migrations: [], retry: { timers: recordingTimers({ immediate: true }).timers } });
  assert.deepEqual(await connection.transaction('append', async (client) => (await client.query('INSERT 1 -- work')).rows[0]), { written: 2 });
  assert.ok(statements.includes('ROLLBACK'));
});

const target = postgresTestTarget();

if (target.url === undefined) {
  test('PostgreSQL: a store query whose backend is terminated', { skip: target.skip }, () => undefined);
} else {
  const { url, schema } = target;
  after(() => dropSchema(url, schema));

  test('PostgreSQL: an append whose backend is terminated by pg_terminate_backend from a second connection is retried, and lands once', async () => {
    const applicationName = `strata_retry_${schema}`;
    const withName = new URL(url);
    withName.searchParams.set('application_name', applicationName);
    const clock = recordingTimers({ immediate: true });
    const store = createPostgresSessionStore({ connectionString: withName.toString(), schema, retry: { timers: clock.timers } });
    const locker = new pg.Client({ connectionString: url });
    const watcher = new pg.Client({ connectionString: url });
    await Promise.all([locker.connect(), watcher.connect()]);
    try {
      await store.append('retried', [{ role: 'user', content: 'first' }]);
      // The store's next append waits on this lock; while it waits, its backend is terminated.
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${pg.escapeIdentifier(schema)}.strata_sessions IN ACCESS EXCLUSIVE MODE`);
      const appending = store.append('retried', [{ role: 'assistant', content: 'second' }]);
      let terminated = false;
      for (let look = 0; look < 10_000 && !terminated; look += 1) {
        const rows = (await watcher.query<{ ok: boolean }>(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [applicationName])).rows;
        terminated = rows.some((row) => row.ok);
      }
      assert.ok(terminated, 'the waiting append was found and terminated');
      await locker.query('COMMIT');
      const version = await appending;
      assert.equal(version.version, 2);
      assert.equal(clock.waits.length, 1, 'one retry');
      assert.deepEqual(await store.versions('retried'), [1, 2]);
      assert.deepEqual((await store.load('retried'))?.messages, [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'second' }]);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await Promise.all([locker.end(), watcher.end(), store.close()]);
    }
  });
}
