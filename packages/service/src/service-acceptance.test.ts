import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPostgresStores } from '@strata/store';
import { loadProviderRules } from '@strata/testing';
import pg from 'pg';
import type { RunSummary } from './run-directory.js';
import { SUBAGENT_WORKFLOW_NAME } from './run-workflows.js';
import { ServiceHarness } from './testing/service-harness.js';

const url = process.env.STRATA_TEST_POSTGRES_URL;

if (url === undefined || url === '') {
  console.log('# notice: run service acceptance skipped: STRATA_TEST_POSTGRES_URL is not set (e.g. postgres://strata:strata@127.0.0.1:5432/strata_test); .ci/run sets it');
  test('run service acceptance', { skip: 'STRATA_TEST_POSTGRES_URL is not set' }, () => undefined);
} else {
  const harness = new ServiceHarness({ url, workers: 3, toolDelayMs: 150, maxBodyBytes: 65_536 });
  before(() => harness.start(), { timeout: 90_000 });
  after(() => harness.stop());

  const status = async (runId: string) => (await harness.run(runId)).status;
  const attempts = (kind: string) => harness.query<{ key: string; pid: number }>(`SELECT key, pid FROM ${harness.effects}.attempts WHERE kind = $1 ORDER BY at`, [kind]);

  /** Every repeated execution of a step is one that a killed process started and never recorded. */
  function assertNoRecordedStepRanTwice(rows: readonly { key: string; pid: number }[], killed: ReadonlySet<number>, what: string): number {
    const byKey = new Map<string, number[]>();
    for (const row of rows) byKey.set(row.key, [...(byKey.get(row.key) ?? []), row.pid]);
    let reruns = 0;
    for (const [key, pids] of byKey) {
      // Every execution but the last was cut short by a kill; the last one's result is the one recorded.
      for (const pid of pids.slice(0, -1)) assert.ok(killed.has(pid), `${what} ${key} ran again after a run that was not killed (pids ${pids.join(', ')})`);
      reruns += pids.length - 1;
    }
    return reruns;
  }

  test('20 runs on 3 worker slots survive kill -9 of one worker mid-step: slot restarted, all complete, no recorded step twice, nothing lost, every model input valid', { timeout: 180_000 }, async () => {
    const runIds: string[] = [];
    for (let index = 1; index <= 20; index += 1) runIds.push(await harness.createRun('steps', `steps r${index} 3`));
    // Kill slot 2 while one of its tool steps has started and not finished.
    // The slot's process as it is when the step is seen (a slot restarted earlier, on a loaded machine, has a new one).
    let victim = 0;
    await harness.waitFor(
      async () => {
        victim = harness.ready.get(2)!;
        return (await harness.query(`SELECT 1 FROM ${harness.effects}.attempts a WHERE a.kind = 'tool' AND a.pid = $1 AND NOT EXISTS (SELECT 1 FROM ${harness.effects}.effects e WHERE e.key = a.key)`, [victim])).length > 0;
      },
      { timeoutMs: 60_000, what: 'a tool step in progress on worker-2' },
    );
    process.kill(victim, 'SIGKILL');
    await harness.waitFor(async () => harness.ready.has(2) && harness.ready.get(2) !== victim, { timeoutMs: 60_000, what: 'slot 2 restarted' });
    assert.ok(harness.supervisorEvents.some((event) => event.type === 'worker-exited' && event.slot === 2 && event.signal === 'SIGKILL'));
    assert.ok(harness.supervisorEvents.filter((event) => event.type === 'worker-started' && event.slot === 2).length >= 2);

    await harness.waitFor(async () => (await Promise.all(runIds.map(status))).every((value) => value === 'succeeded' || value === 'failed'), { timeoutMs: 150_000, what: 'all 20 runs finished' });
    const runs = await Promise.all(runIds.map((runId) => harness.run(runId)));
    runs.forEach((run: RunSummary, index) => {
      assert.equal(run.status, 'succeeded', `${run.id}: ${run.error ?? ''}`);
      assert.equal(run.outcome?.stopReason, 'completed');
      assert.equal(run.outcome?.text, `done r${index + 1}`);
      assert.equal(run.outcome?.turns, 4);
    });

    // Side effects: each tool call's effect exactly once; repeats only of steps a killed worker had not recorded.
    const effects = await harness.query<{ key: string }>(`SELECT key FROM ${harness.effects}.effects ORDER BY key`);
    const expected = runIds.flatMap((runId, index) => [1, 2, 3].map((step) => `${runId}/call_r${index + 1}_${step}`)).sort();
    assert.deepEqual(effects.map((row) => row.key), expected);
    const killed = new Set([victim]);
    const toolReruns = assertNoRecordedStepRanTwice(await attempts('tool'), killed, 'tool step');
    assert.ok(toolReruns >= 1, 'the tool step cut short by the kill ran again');
    assertNoRecordedStepRanTwice(await attempts('model'), killed, 'model step');

    // No message lost or doubled: each stored session is prompt, three closed steps, the answer.
    const stores = createPostgresStores({ connectionString: url, schema: harness.database.storeSchema });
    try {
      for (const [index, runId] of runIds.entries()) {
        const messages = (await stores.sessions.load(runId))?.messages ?? [];
        assert.deepEqual(messages.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'], runId);
        assert.deepEqual(messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])), [1, 2, 3].map((step) => `call_r${index + 1}_${step}`));
      }
    } finally {
      await stores.close();
    }
    const finished = await harness.query<{ run_id: string }>(`SELECT DISTINCT run_id FROM "${harness.database.serviceSchema}".strata_run_events WHERE event->>'type' = 'run-finished'`);
    assert.equal(finished.length, 20);

    // Every assembled input passes the independent provider-rules oracle.
    const rules = await loadProviderRules();
    const inputs = await harness.query<{ key: string; messages: unknown[] }>(`SELECT key, messages FROM ${harness.effects}.inputs`);
    assert.ok(inputs.length >= 80);
    if (rules) {
      for (const input of inputs) {
        assert.deepEqual(rules.violations(input.messages, 'openai'), [], input.key);
        assert.deepEqual(rules.violations(input.messages, 'anthropic'), [], input.key);
      }
    }
  });

  test('an approval wait outlives a restart of every worker; the run completes once the approval is posted', { timeout: 120_000 }, async () => {
    const runId = await harness.createRun('approvals', 'approve a1');
    // The approval tool has started (its model turn is recorded): the run now waits on a durable message.
    await harness.waitFor(
      async () => (await harness.query(`SELECT 1 FROM "${harness.database.serviceSchema}".strata_run_events WHERE run_id = $1 AND event->>'type' = 'tool-call-start'`, [runId])).length > 0,
      { timeoutMs: 30_000, what: 'the approval asked' },
    );
    // kill -9 every worker while the run waits.
    const before = new Map(harness.ready);
    for (const pid of before.values()) process.kill(pid, 'SIGKILL');
    await harness.waitFor(async () => [...before].every(([slot, pid]) => harness.ready.has(slot) && harness.ready.get(slot) !== pid), { timeoutMs: 60_000, what: 'every slot restarted' });
    // Recovery puts the queued run back on the queue; whichever worker takes it finds the turn still waiting.
    assert.ok(['queued', 'running'].includes(await status(runId)));
    let delivered: Response | undefined;
    await harness.waitFor(async () => {
      delivered = await harness.api(`/runs/${runId}/messages`, { method: 'POST', body: JSON.stringify({ approved: true, text: 'go ahead' }) });
      return delivered.status === 202;
    }, { timeoutMs: 30_000, what: 'the approval delivered' });
    await harness.waitFor(async () => (await status(runId)) === 'succeeded', { timeoutMs: 60_000, what: 'the approved run completed' });
    const run = await harness.run(runId);
    assert.equal(run.outcome?.text, 'done a1');
    // The event stream of the finished run replays its events and ends with run-finished; Last-Event-ID resumes after an event.
    const stream = await (await harness.api(`/runs/${runId}/events`)).text();
    const names = [...stream.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    // At least once: the turn replayed after the restart announces its tool call again.
    assert.deepEqual([...new Set(names.filter((name) => name === 'tool-call-start' || name === 'text-delta' || name === 'run-finished'))], ['tool-call-start', 'text-delta', 'run-finished']);
    assert.equal(names.at(-1), 'run-finished');
    const ids = [...stream.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    const resumed = await (await harness.api(`/runs/${runId}/events`, { headers: { 'last-event-id': String(ids.at(-2)) } })).text();
    assert.deepEqual([...resumed.matchAll(/^event: (.+)$/gm)].map((match) => match[1]), ['run-finished']);
    // The model asked once: its turn was recorded before the restart and replayed from the record.
    assert.deepEqual((await attempts('model')).filter((row) => row.key.startsWith('a1:')).map((row) => row.key), ['a1:1', 'a1:2']);
  });

  test('a sub-agent is a durable child: every worker killed while it works, it resumes, its tool effects happen once per call, the parent completes once with its deadline paused', { timeout: 150_000 }, async () => {
    const runId = await harness.createRun('delegates', 'delegate d1 3');
    const childId = `${runId}/subagent/call_d1_delegate`;
    // Kill every worker while one of the sub-agent's tool steps has started and not finished.
    await harness.waitFor(
      async () => (await harness.query(`SELECT 1 FROM ${harness.effects}.attempts a WHERE a.kind = 'tool' AND a.key LIKE $1 AND NOT EXISTS (SELECT 1 FROM ${harness.effects}.effects e WHERE e.key = a.key)`, [`${childId}/%`])).length > 0,
      { timeoutMs: 60_000, what: "a sub-agent's tool step in progress" },
    );
    const before = new Map(harness.ready);
    for (const pid of before.values()) process.kill(pid, 'SIGKILL');
    await harness.waitFor(async () => [...before].every(([slot, pid]) => harness.ready.has(slot) && harness.ready.get(slot) !== pid), { timeoutMs: 60_000, what: 'every slot restarted' });
    await harness.waitFor(async () => ['succeeded', 'failed'].includes(await status(runId)), { timeoutMs: 90_000, what: 'the delegating run finished' });

    const run = await harness.run(runId);
    assert.equal(run.status, 'succeeded', run.error);
    assert.deepEqual({ stopReason: run.outcome?.stopReason, text: run.outcome?.text, turns: run.outcome?.turns }, { stopReason: 'completed', text: 'done d1', turns: 2 });
    // One sub-agent workflow, a child of the parent's first turn, finished once.
    const system = pg.escapeIdentifier(harness.database.systemSchema);
    const children = await harness.query<{ workflow_uuid: string; status: string; parent_workflow_id: string; created_at: string; updated_at: string }>(
      `SELECT workflow_uuid, status, parent_workflow_id, created_at, updated_at FROM ${system}.workflow_status WHERE name = $1 AND workflow_uuid LIKE $2`,
      [SUBAGENT_WORKFLOW_NAME, `${runId}/%`],
    );
    assert.deepEqual(children.map((row) => [row.workflow_uuid, row.status, row.parent_workflow_id]), [[childId, 'SUCCESS', `${runId}/turn-1`]]);
    const killed = new Set(before.values());
    // The child's tool effects: once per call id; a repeat only of the step the kill cut short.
    const effects = await harness.query<{ key: string }>(`SELECT key FROM ${harness.effects}.effects WHERE key LIKE $1 ORDER BY key`, [`${runId}/%`]);
    assert.deepEqual(effects.map((row) => row.key), [1, 2, 3].map((step) => `${childId}/call_d1-sub_${step}`));
    const toolAttempts = (await attempts('tool')).filter((row) => row.key.startsWith(`${runId}/`));
    assert.ok(assertNoRecordedStepRanTwice(toolAttempts, killed, 'sub-agent tool step') >= 1, 'the tool step cut short by the kill ran again');
    const modelAttempts = await attempts('model');
    assertNoRecordedStepRanTwice(modelAttempts.filter((row) => row.key.startsWith('d1-sub:')), killed, 'sub-agent model step');
    // The parent asked its model once per turn: the delegating turn was recorded before the kill and replayed from the record.
    assert.deepEqual(modelAttempts.filter((row) => row.key.startsWith('d1:')).map((row) => row.key), ['d1:1', 'd1:2']);
    const finished = await harness.query(`SELECT 1 FROM "${harness.database.serviceSchema}".strata_run_events WHERE run_id = $1 AND event->>'type' = 'run-finished'`, [runId]);
    assert.equal(finished.length, 1, 'the parent finished once');

    // Both sessions whole: the parent's holds the sub-agent's answer as the delegate result.
    const stores = createPostgresStores({ connectionString: url, schema: harness.database.storeSchema });
    try {
      const parent = (await stores.sessions.load(runId))?.messages ?? [];
      assert.deepEqual(parent.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant']);
      assert.ok(parent[2]!.role === 'tool' && parent[2]!.content === 'done d1-sub' && parent[2]!.isError !== true);
      const child = (await stores.sessions.load(childId))?.messages ?? [];
      assert.deepEqual(child.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    } finally {
      await stores.close();
    }
    // The parent's active time leaves out the wait: less than the sub-agent took from start to finish (three tool steps and a restart).
    const childWallMs = Number(children[0]!.updated_at) - Number(children[0]!.created_at);
    assert.ok(run.outcome!.activeMs < childWallMs, `parent active ${run.outcome!.activeMs} ms, sub-agent ${childWallMs} ms`);

    const rules = await loadProviderRules();
    const inputs = (await harness.query<{ key: string; messages: unknown[] }>(`SELECT key, messages FROM ${harness.effects}.inputs`)).filter((input) => /^d1(-sub)?:/.test(input.key));
    assert.ok(inputs.length >= 6);
    if (rules) {
      for (const input of inputs) {
        assert.deepEqual(rules.violations(input.messages, 'openai'), [], input.key);
        assert.deepEqual(rules.violations(input.messages, 'anthropic'), [], input.key);
      }
    }
  });

  test('cancelling a run cancels the sub-agent it waits on: the child stops after its step in progress, the parent ends cancelled', { timeout: 60_000 }, async () => {
    const runId = await harness.createRun('delegates', 'delegate c1 3');
    const childId = `${runId}/subagent/call_c1_delegate`;
    await harness.waitFor(async () => (await harness.query(`SELECT 1 FROM ${harness.effects}.attempts WHERE kind = 'tool' AND key = $1`, [`${childId}/call_c1-sub_1`])).length > 0, { timeoutMs: 30_000, what: "the sub-agent's first tool running" });
    assert.equal((await harness.api(`/runs/${runId}/cancel`, { method: 'POST' })).status, 202);
    await harness.waitFor(async () => (await status(runId)) === 'cancelled', { timeoutMs: 10_000, what: 'the run cancelled' });
    const system = pg.escapeIdentifier(harness.database.systemSchema);
    await harness.waitFor(
      async () => (await harness.query(`SELECT 1 FROM ${system}.workflow_status WHERE workflow_uuid = $1 AND status = 'CANCELLED'`, [childId])).length > 0,
      { timeoutMs: 10_000, what: 'the sub-agent cancelled' },
    );
    // The child took no step after the cancel: at most the step in progress finished, and the parent's model was not asked again.
    const effects = await harness.query(`SELECT 1 FROM ${harness.effects}.effects WHERE key LIKE $1`, [`${childId}/%`]);
    assert.ok(effects.length <= 1, `${effects.length} sub-agent effects after a cancel during the first`);
    assert.deepEqual((await attempts('model')).filter((row) => row.key.startsWith('c1:')).map((row) => row.key), ['c1:1']);
  });

  test('a cancelled run stops after the step in progress, and its trace is complete', { timeout: 60_000 }, async () => {
    const runId = await harness.createRun('slow', 'slow s1');
    await harness.waitFor(async () => (await harness.query(`SELECT 1 FROM ${harness.effects}.attempts WHERE kind = 'tool' AND key = $1`, [`${runId}/call_s1_slow`])).length > 0, { timeoutMs: 30_000, what: 'the slow tool running' });
    const cancelled = await harness.api(`/runs/${runId}/cancel`, { method: 'POST' });
    assert.equal(cancelled.status, 202);
    await harness.waitFor(async () => (await status(runId)) === 'cancelled', { timeoutMs: 10_000, what: 'the run cancelled' });
    // The step in progress was aborted (not left to run its ten minutes) and stored closed.
    await harness.waitFor(
      async () => (await harness.query(`SELECT 1 FROM "${harness.database.serviceSchema}".strata_run_events WHERE run_id = $1 AND event->>'type' = 'run-end'`, [runId])).length > 0,
      { timeoutMs: 10_000, what: 'the agent ended its run' },
    );
    const events = await harness.query<{ event: { type: string; stopReason?: string } }>(`SELECT event FROM "${harness.database.serviceSchema}".strata_run_events WHERE run_id = $1 ORDER BY sequence`, [runId]);
    const types = events.map((row) => row.event.type);
    assert.deepEqual(types.filter((type) => ['turn-start', 'context-assembled', 'tool-call-start', 'run-end'].includes(type)), ['turn-start', 'context-assembled', 'tool-call-start', 'run-end']);
    assert.equal(events.find((row) => row.event.type === 'run-end')?.event.stopReason, 'cancelled');
    // The event stream says cancelled in every event that ends something: the agent's run-end, the service's run-finished.
    const stream = await (await harness.api(`/runs/${runId}/events`)).text();
    const ends = [...stream.matchAll(/^data: (.+)$/gm)].map((match) => JSON.parse(match[1]!) as { type: string; stopReason?: string; status?: string }).filter((event) => event.type === 'run-end' || event.type === 'run-finished' || event.type === 'end');
    assert.deepEqual(ends.map((event) => [event.type, event.stopReason ?? event.status]), [['run-end', 'cancelled'], ['run-finished', 'cancelled']]);
    const traces = (await (await harness.api(`/runs/${runId}/traces`)).json()) as { traces: { turn: number }[] };
    assert.deepEqual(traces.traces.map((trace) => trace.turn), [1]);
    assert.equal((await attempts('model')).filter((row) => row.key.startsWith('s1:')).length, 1);
    // The step was stored closed: the call and its interrupted result, nothing after.
    const stores = createPostgresStores({ connectionString: url, schema: harness.database.storeSchema });
    try {
      const messages = (await stores.sessions.load(runId))?.messages ?? [];
      assert.deepEqual(messages.map((message) => message.role), ['user', 'assistant', 'tool']);
      const result = messages[2]!;
      assert.ok(result.role === 'tool' && result.toolCallId === 'call_s1_slow' && result.isError === true);
    } finally {
      await stores.close();
    }
  });

  test('the API over the real queue: bad input enqueues nothing', { timeout: 30_000 }, async () => {
    const count = async () => ((await (await harness.api('/runs?limit=1000')).json()) as { runs: unknown[] }).runs.length;
    const before = await count();
    const bad: [RequestInit & { auth?: string }, number][] = [
      [{ method: 'POST', body: '{"profile":' }, 400],
      [{ method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'x'.repeat(70_000) }) }, 413],
      [{ method: 'POST', body: JSON.stringify({ profile: 'unknown', prompt: 'hi' }) }, 400],
    ];
    for (const [init, expected] of bad) assert.equal((await harness.api('/runs', init)).status, expected);
    const noToken = await fetch(`${harness.server.url}/runs`, { method: 'POST', body: JSON.stringify({ profile: 'steps', prompt: 'steps x 1' }) });
    assert.equal(noToken.status, 401);
    assert.equal(((await noToken.json()) as { error: { code: string } }).error.code, 'UNAUTHORIZED');
    const wrongToken = await fetch(`${harness.server.url}/runs`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: JSON.stringify({ profile: 'steps', prompt: 'steps x 1' }) });
    assert.equal(wrongToken.status, 401);
    assert.equal((await harness.api('/runs/run_unknown')).status, 404);
    assert.equal(await count(), before);
  });
}
