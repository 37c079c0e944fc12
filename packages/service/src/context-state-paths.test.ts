import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentRun } from '@strata/agent';
import { createHostLoopContext, resolveContextBudget, toOpenAIChat, type CanonicalMessage, type ContextContributorFactory, type ContextTraceV5, type ToolDefinition } from '@strata/context';
import { createModelSummarizer } from '@strata/model';
import { createMemorySessionStore, createMemoryToolOutputStore, derivedToolOutputId } from '@strata/store';
import { loadProviderRules } from '@strata/testing';
import { hostToolResultStore, ToolRegistry } from '@strata/tools';
import pg from 'pg';
import { createEffectTables, createScriptedCatalog } from './testing/scripted-catalog.js';
import { ServiceHarness } from './testing/service-harness.js';

const url = process.env.STRATA_TEST_POSTGRES_URL;

/** A window small enough that the run masks, compacts (projections and checkpoints) and cuts: 3,000 tokens of input. */
const WINDOW_TOKENS = 4_000;
const STEPS = 30;
/** `cut-`: the scripted summaries are too large to be taken, so the window must cut (see `createScriptedCatalog`). */
const TAG = 'cut-paths';


/** The model inputs a catalog recorded under `schema` (quoted), by key (`<tag>:<part>`), each once (a model step run again by a restarted worker records the same input). */
async function recordedInputs(pool: pg.Pool, schema: string): Promise<Map<string, string>> {
  const rows = (await pool.query<{ key: string; messages: unknown }>(`SELECT key, messages FROM ${schema}.inputs WHERE key LIKE $1`, [`${TAG}:%`])).rows;
  const inputs = new Map<string, string>();
  for (const row of rows) {
    const text = JSON.stringify(row.messages);
    const earlier = inputs.get(row.key);
    assert.ok(earlier === undefined || earlier === text, `${row.key} was sent twice with different bytes`);
    inputs.set(row.key, text);
  }
  return inputs;
}

if (url === undefined || url === '') {
  console.log('# notice: context-state paths skipped: STRATA_TEST_POSTGRES_URL is not set; .ci/run sets it');
  test('context-state paths', { skip: 'STRATA_TEST_POSTGRES_URL is not set' }, () => undefined);
} else {
  // Stored-output ids from the run and call (`derivedToolOutputId`) in both paths: the same session gets the same references, and so the same bytes and counts.
  const harness = new ServiceHarness({ url, workers: 2, windowTokens: WINDOW_TOKENS, derivedOutputIds: true });
  before(() => harness.start(), { timeout: 90_000 });
  after(() => harness.stop());

  test('one scripted run, in one process and as service turns on two workers with one killed between turns: every model input byte-identical', { timeout: 240_000 }, async () => {
    const runId = await harness.createRun('logs', `logs ${TAG} ${STEPS}`);
    // As service turns: two worker processes, one killed with SIGKILL once the run is a third of the way through.
    await harness.waitFor(async () => (await recordedInputs(harness.pool, harness.effects)).size >= 10, { timeoutMs: 120_000, what: 'ten turns of the service run' });
    const [last] = await harness.query<{ pid: number }>(`SELECT pid FROM ${harness.effects}.attempts WHERE kind = 'model' ORDER BY at DESC LIMIT 1`);
    const victim = [...harness.ready.entries()].find(([, pid]) => pid === last!.pid);
    assert.ok(victim, 'the worker that made the last model call is one of the slots');
    process.kill(victim[1], 'SIGKILL');
    await harness.waitFor(async () => ['succeeded', 'failed'].includes((await harness.run(runId)).status), { timeoutMs: 180_000, what: 'the service run finished' });
    const run = await harness.run(runId);
    assert.equal(run.status, 'succeeded', run.error ?? '');
    assert.equal(run.outcome?.stopReason, 'completed');
    assert.ok(harness.supervisorEvents.some((event) => event.type === 'worker-exited' && event.signal === 'SIGKILL'));

    // In one process, under the same context id: createAgentRun over the same catalog entry, configuration and summarizer the service's turns use.
    const local = `${harness.prefix}_local`;
    await createEffectTables(harness.pool, local);
    const catalog = createScriptedCatalog({ pool: harness.pool, schema: local, windowTokens: WINDOW_TOKENS });
    const entry = catalog.profiles.logs!;
    const model = catalog.model('scripted-service');
    const tools = new ToolRegistry();
    for (const tool of entry.tools ?? []) {
      const definition: ToolDefinition = {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        execute: (input, context) => tool.execute(input, { ...context, idempotencyKey: `${context.contextId}/${context.toolCallId}` }),
      };
      tools.register(definition);
    }
    const sessions = createMemorySessionStore();
    const outputs = createMemoryToolOutputStore({ newId: derivedToolOutputId });
    const traces: ContextTraceV5[] = [];
    const traceSink = { write: async (document: { body: unknown }) => void traces.push(document.body as ContextTraceV5) };
    const alone = await createAgentRun(
      entry.profile,
      { model, tools, outputStore: outputs, sessionStore: sessions, traceSink, configuration: catalog.configuration, summarizer: createModelSummarizer({ client: model }) },
      { contextId: runId, prompt: `logs ${TAG} ${STEPS}` },
    ).execute();
    assert.equal(alone.stopReason, 'completed', String(alone.error ?? ''));
    const history: readonly CanonicalMessage[] = alone.finalMessages;
    // What decides bytes between turns is all exercised: compaction, window cuts (the window start), the capacity step.
    assert.ok(history.some((message) => message.role === 'tool' && message.masked === true), 'the run must compact');
    assert.ok(traces.filter((trace) => trace.renderedContext!.window.droppedUnits > 0).length >= 5, 'the window must cut');

    const inProcess = await recordedInputs(harness.pool, pg.escapeIdentifier(local));
    const service = await recordedInputs(harness.pool, harness.effects);
    assert.equal(inProcess.size, STEPS + 1, 'one input per model turn');
    assert.deepEqual([...service.keys()].sort(), [...inProcess.keys()].sort());
    for (const [key, input] of inProcess) assert.equal(service.get(key), input, `turn ${key}: the service sent other bytes than the run in one process`);

    // Through a host's loop: a new host-loop context (as an adapter builds it) for every call, over the same stores,
    // given the host's whole history each call, as SDK loops pass it. It continues from the session and its state alone.
    const trajectory: CanonicalMessage[] = [];
    let previous: readonly CanonicalMessage[] = [];
    for (const version of await sessions.versions(runId)) {
      const stored = (await sessions.loadVersion(runId, version))!;
      if (stored.compaction === undefined) trajectory.push(...stored.messages.slice(previous.length));
      previous = stored.messages;
    }
    // What the host holds: its own messages, without Strata's references.
    const hostMessages = trajectory.map((message) => (message.role === 'tool' ? { role: 'tool' as const, toolCallId: message.toolCallId, toolName: message.toolName, content: message.content } : message));
    const hostSessions = createMemorySessionStore();
    const hostOutputs = createMemoryToolOutputStore({ newId: derivedToolOutputId });
    const identity: ContextContributorFactory = {
      id: 'host.sections',
      create: ({ scope }) => ({ id: 'profile-sections', scopes: [scope], contribute: () => ({ sections: [{ id: 'profile.identity', slot: 'identity', content: 'You read logs and report.' }] }) }),
    };
    const hostInputs = new Map<string, string>();
    for (const [index, message] of hostMessages.entries()) {
      if (message.role !== 'assistant') continue;
      const context = createHostLoopContext<CanonicalMessage>({
        budget: { inputCapTokens: resolveContextBudget(catalog.configuration).inputCapTokens },
        configuration: catalog.configuration,
        contributors: [identity],
        compaction: { summarizer: createModelSummarizer({ client: model }) },
        outputStore: hostOutputs,
        sessionStore: hostSessions,
        storeResult: hostToolResultStore(hostOutputs),
      });
      const turn = await context.prepare({ contextId: runId, messages: hostMessages.slice(0, index).map((entry) => ({ message: entry, origin: entry })), tools: tools.visibleTools() });
      const calls = message.toolCalls ?? [];
      hostInputs.set(`${TAG}:${calls.length === 0 ? STEPS + 1 : calls[0]!.id.slice(`call_${TAG}_`.length)}`, JSON.stringify(toOpenAIChat(turn.assembled.input.messages)));
    }
    assert.equal(hostInputs.size, STEPS + 1);
    // The same JSON values, message for message (the host's own objects may order their keys otherwise).
    for (const [key, input] of inProcess) assert.deepStrictEqual(JSON.parse(hostInputs.get(key) ?? 'null'), JSON.parse(input), `turn ${key}: a new host-loop context sent other input than the run in one process`);

    const rules = await loadProviderRules();
    if (rules) {
      for (const [key, input] of inProcess) {
        for (const provider of ['openai', 'anthropic'] as const) assert.deepEqual(rules.violations(JSON.parse(input) as never, provider), [], `${key} (${provider})`);
      }
    }
  });
}
