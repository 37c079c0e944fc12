import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPostgresStores } from '@strata/store';
import { ServiceHarness } from './testing/service-harness.js';
import { TIMED_RUN_TIMEOUT_MS } from './testing/scripted-catalog.js';

const url = process.env.STRATA_TEST_POSTGRES_URL;
/** Each model call "takes" this long on the workers' virtual clock; tools take none. */
const MODEL_CALL_MS = 1_000;

if (url === undefined || url === '') {
  console.log('# notice: run-wide deadline acceptance skipped: STRATA_TEST_POSTGRES_URL is not set');
  test('run-wide deadline acceptance', { skip: 'STRATA_TEST_POSTGRES_URL is not set' }, () => undefined);
} else {
  // Deadlines on a virtual clock: a run of `timed` (2,500 ms) has time for two model calls of 1,000 ms; the third passes its deadline.
  const harness = new ServiceHarness({ url, workers: 1, toolDelayMs: 400, modelCallMs: MODEL_CALL_MS });
  before(() => harness.start(), { timeout: 90_000 });
  after(() => harness.stop());

  const finished = async (runId: string) => ['succeeded', 'failed', 'cancelled'].includes((await harness.run(runId)).status);
  const events = (runId: string) => harness.query<{ event: { type: string; stopReason?: string; activeMs?: number } }>(`SELECT event FROM "${harness.database.serviceSchema}".strata_run_events WHERE run_id = $1 ORDER BY sequence`, [runId]);

  /** What every run of `steps <tag> 5` under `timed` must end with, restarted or not. */
  async function assertTimedOutAtTurnThree(runId: string, tag: string): Promise<void> {
    const run = await harness.run(runId);
    assert.equal(run.status, 'succeeded', run.error);
    // Two turns used 2,000 ms; the third passed 2,500 ms during its model call: active time counts across turns, not per turn.
    assert.deepEqual(run.outcome, { stopReason: 'timeout', text: '', turns: 3, usage: run.outcome?.usage, activeMs: 3 * MODEL_CALL_MS });
    assert.ok(run.outcome!.activeMs >= TIMED_RUN_TIMEOUT_MS);
    // A complete trace: one context trace per turn, the agent's run-end and the service's run-finished both say timeout.
    const traces = (await (await harness.api(`/runs/${runId}/traces`)).json()) as { traces: { turn: number }[] };
    assert.deepEqual([...new Set(traces.traces.map((trace) => trace.turn))], [1, 2, 3]);
    const logged = (await events(runId)).map((row) => row.event);
    assert.equal(logged.at(-1)?.type, 'run-finished');
    assert.equal(logged.at(-1)?.stopReason, 'timeout');
    assert.equal(logged.at(-1)?.activeMs, 3 * MODEL_CALL_MS);
    assert.deepEqual(logged.filter((event) => event.type === 'run-end').map((event) => event.stopReason).at(-1), 'timeout');
    // The session holds the two finished steps; the turn that timed out stored nothing half-done.
    const stores = createPostgresStores({ connectionString: url!, schema: harness.database.storeSchema });
    try {
      const messages = (await stores.sessions.load(runId))?.messages ?? [];
      assert.deepEqual(messages.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant', 'tool']);
    } finally {
      await stores.close();
    }
    const effects = await harness.query<{ key: string }>(`SELECT key FROM ${harness.effects}.effects WHERE key LIKE $1 ORDER BY key`, [`${runId}/%`]);
    assert.deepEqual(effects.map((row) => row.key), [1, 2].map((step) => `${runId}/call_${tag}_${step}`));
  }

  test('the run deadline is run-wide: a run ends with timeout once its turns together used its active time, with a complete trace', { timeout: 60_000 }, async () => {
    const runId = await harness.createRun('timed', 'steps t1 5');
    await harness.waitFor(() => finished(runId), { timeoutMs: 45_000, what: 'the timed run finished' });
    await assertTimedOutAtTurnThree(runId, 't1');
  });

  test('the active time used survives a restart: killed mid-turn, the run times out at the same turn with the same active time', { timeout: 120_000 }, async () => {
    const runId = await harness.createRun('timed', 'steps t2 5');
    // Kill the worker while turn 2's tool runs: turn 2's model call (1,000 ms of active time) is recorded, the turn is not.
    await harness.waitFor(async () => (await harness.query(`SELECT 1 FROM ${harness.effects}.attempts WHERE kind = 'tool' AND key = $1`, [`${runId}/call_t2_2`])).length > 0, { timeoutMs: 45_000, what: "turn 2's tool running" });
    const victim = harness.ready.get(1)!;
    process.kill(victim, 'SIGKILL');
    await harness.waitFor(async () => harness.ready.has(1) && harness.ready.get(1) !== victim, { timeoutMs: 60_000, what: 'the worker restarted' });
    await harness.waitFor(() => finished(runId), { timeoutMs: 60_000, what: 'the restarted run finished' });
    // Had the restart lost turn 2's recorded model time, the run would have reached turn 4; had it lost every turn's, it would have completed.
    await assertTimedOutAtTurnThree(runId, 't2');
    const models = await harness.query<{ key: string }>(`SELECT key FROM ${harness.effects}.attempts WHERE kind = 'model' AND key LIKE 't2:%' ORDER BY at`);
    assert.deepEqual(models.map((row) => row.key), ['t2:1', 't2:2', 't2:3'], 'the recorded model call was replayed, not made again');
  });
}
