import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConservativeTokenEstimator, resolveContextConfiguration, type CanonicalMessage, type JsonValue, type ToolResultMessage, type ContextTraceV5, type SessionStore, type Summarizer, type ToolDefinition, type ToolOutputStore } from '@strata/context';
import { loadProviderRules, manualTimers } from '@strata/testing';
import { createModelClient, openAIOverflowError, ScriptedLanguageModel, type ModelClient, type ModelEvent, type ScriptedTurn } from '@strata/model';
import { createFileTraceSink, createMemoryStores } from '@strata/store';
import { ToolRegistry } from '@strata/tools';
import { createAgentRun, type AgentBindings, type AgentProfile } from './create-agent-run.js';
import { StepRefusedError } from './errors/step-refused-error.js';
import { assertProviderSafe, assertStepsWhole, settlesWithin, signalled } from './testing/run-fixtures.js';

const rules = await loadProviderRules();
const user = (content: string): CanonicalMessage => ({ role: 'user', content });
const call = (id: string, name: string, input: JsonValue): ScriptedTurn => ({ parts: [{ type: 'tool-call', id, name, input }] });
const answer = (text: string): ScriptedTurn => ({ parts: [{ type: 'text', text }] });

/** A tool whose handler the test supplies. */
function tool(name: string, execute: ToolDefinition['execute']): ToolDefinition {
  return { name, description: `Test tool ${name}.`, parameters: { type: 'object', properties: { page: { type: 'integer' } } }, execute };
}

function setup(options: { script: ScriptedTurn[]; tools?: ToolDefinition[]; window?: number; client?: ModelClient; sessions?: SessionStore; outputStore?: ToolOutputStore; summarizer?: Summarizer }) {
  const stores = createMemoryStores();
  const registry = new ToolRegistry();
  for (const definition of options.tools ?? []) registry.register(definition);
  const model = new ScriptedLanguageModel(options.script);
  const traces: ContextTraceV5[] = [];
  const clock = manualTimers();
  const sessions = options.sessions ?? stores.sessions;
  const bindings: AgentBindings = {
    model: options.client ?? createModelClient({ model }),
    tools: registry,
    outputStore: options.outputStore ?? stores.toolOutputs,
    sessionStore: sessions,
    traceSink: { write: async (document) => void traces.push(document.body as ContextTraceV5) },
    summarizer: options.summarizer,
    configuration: resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS: String(options.window ?? 32_000), SCIENCE_AGENT_CONTEXT_COMPACTION_PRESSURE_PERCENT: '80' }),
    timers: clock.timers,
    now: () => 0,
  };
  return { bindings, model, traces, clock, sessions, stores };
}

async function stored(sessions: SessionStore, contextId: string): Promise<CanonicalHistory> {
  return (await sessions.load(contextId))?.messages ?? [];
}
type CanonicalHistory = readonly CanonicalMessage[];

// --- the session under another writer --------------------------------------------------------------------------

const notesPage = (page: number): string => `Page ${page}: ` + 'the sample was stable at 21.5 C; '.repeat(40);
const checkpointOf = (transcript: CanonicalHistory): string => {
  const markers = [...new Set(JSON.stringify(transcript).match(/foreign-\d+/g) ?? [])];
  return ['## Completed work', '- read the notes', '## Evidence', `- stable at 21.5 C; seen: ${markers.join(', ') || 'nothing else'}`, '## Decisions', '- none',
    '## Failed or abandoned directions', '- none', '## Pending conditions', '- none', '## Optional directions', '- none', '## Next step', '- answer the user'].join('\n');
};
const noReferences: ToolOutputStore = { put: async () => ({ id: 'none', chars: 0, lines: 0, bytes: 0 }), get: async () => undefined, close: async () => undefined };

test('another writer appending while the run compacts: its message survives, the compaction is made again', async () => {
  const script: ScriptedTurn[] = [];
  for (let page = 1; page <= 8; page += 1) script.push(call(`p${page}`, 'read_notes', { page }));
  script.push(answer('The sample stayed at 21.5 C.'));
  const memory = createMemoryStores();
  let summaries = 0;
  const summarizer: Summarizer = {
    async summarize(request) {
      summaries += 1;
      // The other writer appends between the run's read of the session and its replace.
      if (summaries === 1) await memory.sessions.append('lab', [user('foreign-1: also note the humidity')]);
      return checkpointOf(request.transcript);
    },
  };
  const { bindings, traces } = setup({ script, window: 3_000, tools: [tool('read_notes', (input) => ({ content: notesPage((input as { page: number }).page) }))], sessions: memory.sessions, outputStore: noReferences, summarizer });
  const result = await createAgentRun({ id: 'lab', maskStoredResults: false }, bindings, { contextId: 'lab', prompt: 'Read the notes.' }).execute();
  assert.equal(result.stopReason, 'completed');
  const newest = await stored(memory.sessions, 'lab');
  assert.match(JSON.stringify(newest), /foreign-1/, 'the foreign message is in the newest version (verbatim or in the checkpoint)');
  assert.deepEqual(newest, result.finalMessages, 'the stored session is the run\'s final history');
  assert.ok(result.diagnostics.some((diagnostic) => diagnostic.code === 'AGENT_SESSION_CONFLICT'), 'the conflict was seen and the compaction redone');
  assertStepsWhole(newest);
  assertProviderSafe(rules, traces);
});

test('another writer appending while a tool runs: its message comes after the whole step', async () => {
  const memory = createMemoryStores();
  const { bindings, traces, model } = setup({
    script: [call('c1', 'lookup', { page: 1 }), answer('done')],
    sessions: memory.sessions,
    tools: [tool('lookup', async () => {
      await memory.sessions.append('interleave', [user('foreign-1: one more thing')]);
      return { content: 'looked up' };
    })],
  });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'interleave', prompt: 'Look it up.' }).execute();
  assert.equal(result.stopReason, 'completed');
  const newest = await stored(memory.sessions, 'interleave');
  assert.deepEqual(newest.map((message) => message.role), ['user', 'assistant', 'tool', 'user', 'assistant']);
  assert.deepEqual(newest[3], user('foreign-1: one more thing'));
  assert.deepEqual(newest, result.finalMessages);
  assert.match(JSON.stringify(model.calls[1]!.prompt), /foreign-1/, 'the model saw the foreign message on its next turn');
  assertStepsWhole(newest);
  assertProviderSafe(rules, traces);
});

test('a resume writes nothing until something changes, and does not die when a replace would fail', async () => {
  const memory = createMemoryStores();
  await memory.sessions.append('resume', [user('Hello'), { role: 'assistant', content: 'Hi.' }]);
  const refusing: SessionStore = { ...memory.sessions, replace: async () => { throw new Error('replace refused'); } };
  const { bindings, model } = setup({ script: [answer('Still here.')], sessions: refusing });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'resume', prompt: 'Are you there?' }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.equal(model.calls.length, 1);
  assert.deepEqual(await memory.sessions.versions('resume'), [1, 2, 3], 'one version for the prompt, one for the answer');
  assert.equal((await memory.sessions.loadVersion('resume', 2))!.compaction, undefined);
  assert.deepEqual(await stored(memory.sessions, 'resume'), result.finalMessages);
});

// --- faults, on the run's own timers --------------------------------------------------------------------------------

test('a tool that ignores its abort: the run deadline ends the run on schedule, the step closed as interrupted', async () => {
  const started = signalled();
  const stuck = tool('stuck', () => {
    started.resolve();
    return new Promise(() => undefined); // never settles, never looks at its signal
  });
  const { bindings, clock, sessions } = setup({ script: [call('s1', 'stuck', {}), answer('never')], tools: [stuck] });
  const run = createAgentRun({ id: 'tester', runTimeoutMs: 2_000 }, bindings, { contextId: 'stuck', prompt: 'Go' }).execute();
  await started.promise;
  assert.equal(clock.fire(2_000), 1, 'the run deadline fires at 2 s');
  const outcome = await settlesWithin(run);
  assert.ok(outcome.settled, 'the run ended when its deadline fired');
  const result = outcome.value;
  assert.equal(result.stopReason, 'timeout');
  assert.deepEqual(result.finalMessages.map((message) => message.role), ['user', 'assistant', 'tool']);
  assert.ok(result.finalMessages[2]!.role === 'tool' && result.finalMessages[2]!.isError === true);
  assert.ok(result.diagnostics.some((diagnostic) => diagnostic.code === 'AGENT_TOOL_RESULT_DISCARDED'));
  assert.deepEqual(await stored(sessions, 'stuck'), result.finalMessages);
});

test('a cancel while a tool ignores its abort takes effect at once', async () => {
  const started = signalled();
  const controller = new AbortController();
  const stuck = tool('stuck', () => {
    started.resolve();
    return new Promise(() => undefined);
  });
  const { bindings, sessions } = setup({ script: [call('s1', 'stuck', {}), answer('never')], tools: [stuck] });
  const run = createAgentRun({ id: 'tester' }, bindings, { contextId: 'cancel', prompt: 'Go', signal: controller.signal }).execute();
  await started.promise;
  controller.abort(new Error('user cancelled'));
  const outcome = await settlesWithin(run);
  assert.ok(outcome.settled);
  assert.equal(outcome.value.stopReason, 'cancelled');
  assertStepsWhole(outcome.value.finalMessages);
  assert.deepEqual(await stored(sessions, 'cancel'), outcome.value.finalMessages);
});

/** A model client whose stream sends one delta, then stalls and ignores its abort signal. */
const stalledClient: ModelClient = {
  provider: 'test',
  modelId: 'stalled',
  async *stream(): AsyncIterable<ModelEvent> {
    yield { type: 'text-delta', text: 'thinking' };
    await new Promise(() => undefined);
  },
} as unknown as ModelClient;

test('a run resumed with the active time it already used has only the rest of its deadline, and reports its reading', async () => {
  const started = signalled();
  const stuck = tool('stuck', () => {
    started.resolve();
    return new Promise(() => undefined);
  });
  const { bindings, clock } = setup({ script: [call('s1', 'stuck', {}), answer('never')], tools: [stuck] });
  const run = createAgentRun({ id: 'tester', runTimeoutMs: 2_000 }, bindings, { contextId: 'resumed', prompt: 'Go', activeMsUsed: 1_500 });
  const running = run.execute();
  await started.promise;
  assert.equal(clock.fire(2_000), 0, 'not the full deadline again');
  assert.equal(clock.fire(500), 1, 'the 500 ms left');
  const outcome = await settlesWithin(running);
  assert.ok(outcome.settled);
  assert.equal(outcome.value.stopReason, 'timeout');
  assert.equal(run.activeMs(), 1_500, 'the clock (fixed at 0 here) added nothing to the 1,500 ms carried in');
});

test('a stalled model stream that ignores abort ends by the idle timeout or the run deadline, on schedule', async () => {
  for (const [profile, delayMs, reason] of [[{ idleTimeoutMs: 500 }, 500, 'idle-timeout'], [{ runTimeoutMs: 2_000 }, 2_000, 'timeout']] as const) {
    const { bindings, clock, sessions } = setup({ script: [], client: stalledClient });
    const deltas = signalled();
    const run = createAgentRun({ id: 'tester', ...profile } as AgentProfile, bindings, { contextId: `stall-${reason}`, prompt: 'Go', onEvent: (event) => event.type === 'text-delta' && deltas.resolve() }).execute();
    await deltas.promise;
    assert.equal(clock.fire(delayMs), 1);
    const outcome = await settlesWithin(run);
    assert.ok(outcome.settled, `${reason}: the run ended when the timer fired`);
    assert.equal(outcome.value.stopReason, reason);
    assert.deepEqual(outcome.value.finalMessages, [user('Go')]);
    assert.deepEqual(await stored(sessions, `stall-${reason}`), [user('Go')]);
  }
});

test('an overflow twice: exactly one forced retry, then context-overflow, the session unchanged', async () => {
  const { bindings, model, sessions, traces } = setup({ script: [{ throws: openAIOverflowError() }, { throws: openAIOverflowError() }, answer('never')] });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'overflow', prompt: 'Hello' }).execute();
  assert.equal(result.stopReason, 'context-overflow');
  assert.equal(model.calls.length, 2);
  assert.deepEqual(traces.map((trace) => trace.recoveryAttempt), [null, 1]);
  assert.deepEqual(await stored(sessions, 'overflow'), [user('Hello')]);
  assert.deepEqual(result.finalMessages, [user('Hello')]);
});

test('a store that fails mid-run ends the run as a runtime error; what was stored stays', async () => {
  const memory = createMemoryStores();
  let appends = 0;
  const failing: SessionStore = {
    ...memory.sessions,
    append: async (contextId, messages, options) => {
      appends += 1;
      if (appends === 2) throw new Error('disk full');
      return memory.sessions.append(contextId, messages, options);
    },
  };
  const { bindings } = setup({ script: [call('c1', 'lookup', {}), answer('done')], tools: [tool('lookup', () => ({ content: 'found' }))], sessions: failing });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'fails', prompt: 'Look.' }).execute();
  assert.equal(result.stopReason, 'runtime-error');
  assert.match(String((result.error as Error).message), /disk full/);
  assert.deepEqual(await stored(memory.sessions, 'fails'), [user('Look.')]);
  assert.deepEqual(result.finalMessages, [user('Look.')]);
});

test('a summarizer that hangs and ignores abort: the run deadline ends the run, the session unchanged', async () => {
  const script: ScriptedTurn[] = [];
  for (let page = 1; page <= 8; page += 1) script.push(call(`p${page}`, 'read_notes', { page }));
  script.push(answer('never'));
  const hanging = signalled();
  const summarizer: Summarizer = {
    summarize: () => {
      hanging.resolve();
      return new Promise(() => undefined);
    },
  };
  const { bindings, clock, sessions } = setup({ script, window: 3_000, tools: [tool('read_notes', (input) => ({ content: notesPage((input as { page: number }).page) }))], outputStore: noReferences, summarizer });
  const run = createAgentRun({ id: 'tester', runTimeoutMs: 60_000, maskStoredResults: false }, bindings, { contextId: 'hang', prompt: 'Read the notes.' }).execute();
  await hanging.promise;
  const before = await stored(sessions, 'hang');
  assert.equal(clock.fire(60_000), 1);
  const outcome = await settlesWithin(run);
  assert.ok(outcome.settled, 'the run ended when its deadline fired');
  assert.equal(outcome.value.stopReason, 'timeout');
  assert.deepEqual(await stored(sessions, 'hang'), before, 'nothing stored was lost');
  assert.deepEqual(outcome.value.finalMessages, before);
  assertStepsWhole(before);
});

// --- traces -------------------------------------------------------------------------------------------------------

test('a resumed run numbers its traces on from the last one; none is overwritten or lost', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-traces-'));
  try {
    const memory = createMemoryStores();
    const first = setup({ script: [call('c1', 'lookup', {}), answer('first')], tools: [tool('lookup', () => ({ content: 'found' }))], sessions: memory.sessions });
    const sink = createFileTraceSink({ directory });
    const one = await createAgentRun({ id: 'tester' }, { ...first.bindings, traceSink: sink }, { contextId: 'traced', prompt: 'One.' }).execute();
    const second = setup({ script: [answer('second')], sessions: memory.sessions });
    const two = await createAgentRun({ id: 'tester' }, { ...second.bindings, traceSink: sink }, { contextId: 'traced', prompt: 'Two.' }).execute();
    assert.deepEqual([one.stopReason, two.stopReason], ['completed', 'completed']);
    assert.deepEqual([...one.diagnostics, ...two.diagnostics], []);
    assert.deepEqual((await readdir(join(directory, 'traced'))).sort(), ['turn-0001.json', 'turn-0002.json', 'turn-0003.json']);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('a failed trace write is reported in the run\'s result', async () => {
  const { bindings } = setup({ script: [answer('hi')] });
  const result = await createAgentRun({ id: 'tester' }, { ...bindings, traceSink: { write: async () => { throw new Error('trace disk full'); } } }, { contextId: 'trace-fails', prompt: 'Hello' }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.diagnostics.map((diagnostic) => diagnostic.code), ['AGENT_TRACE_WRITE_FAILED']);
  assert.match(result.diagnostics[0]!.message, /turn 1.*trace disk full/);
});

// --- credentials ----------------------------------------------------------------------------------------------------

test('a credential in a tool\'s error text reaches neither the history, the store, the prompt nor the trace', async () => {
  const secret = ['sk', 'live', 'Q7w8E9r0T1y2U3i4O5p6'].join('-');
  const leaky = tool('fetch_data', () => {
    throw new Error(`upstream refused Authorization: Bearer ${secret}`);
  });
  const { bindings, model, traces, sessions } = setup({ script: [call('f1', 'fetch_data', {}), answer('It failed.')], tools: [leaky] });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'leak', prompt: 'Fetch.' }).execute();
  assert.equal(result.stopReason, 'completed');
  const places = { history: result.finalMessages, store: await stored(sessions, 'leak'), prompt: model.calls.map((entry) => entry.prompt), trace: traces };
  for (const [place, value] of Object.entries(places)) assert.ok(!JSON.stringify(value).includes(secret), `no secret in the ${place}`);
  assert.match(JSON.stringify(result.finalMessages), /Bearer \[REDACTED:bearer-token\]/);
  assert.ok(result.diagnostics.some((diagnostic) => diagnostic.code === 'AGENT_CREDENTIALS_REDACTED'));
});

test('a credential in a provider\'s error text is redacted from the run\'s error', async () => {
  const secret = ['sk', 'ant', 'api03', 'Zz9Yy8Xx7Ww6Vv5Uu4'].join('-');
  const { bindings } = setup({ script: [{ throws: new Error(`invalid x-api-key ${secret}`) }] });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'provider-leak', prompt: 'Hello' }).execute();
  assert.equal(result.stopReason, 'model-error');
  assert.ok(!String((result.error as Error).message).includes(secret));
});

// --- steps that cannot be taken ---------------------------------------------------------------------------------------

test('a step that fits the cap but not the room the system prompt and tools leave for history is refused before any tool runs', async () => {
  let runs = 0;
  // 95 calls: about 1,950 estimated tokens with empty results (the premise below holds them between the history's share and the cap).
  const parts = Array.from({ length: 95 }, (_, index) => ({ type: 'tool-call' as const, id: `call_${index}`, name: 'lookup', input: { page: index } }));
  const identity = 'You are a careful research agent who reads every page the user names. '.repeat(30);
  const { bindings, traces } = setup({ script: [{ parts }, answer('never')], window: 2_000, tools: [tool('lookup', () => ((runs += 1), { content: 'x' }))] });
  const result = await createAgentRun({ id: 'tester', sections: { identity } }, bindings, { contextId: 'no-room', prompt: 'Go' }).execute();
  // The premise: the step with empty results fits the cap, not the history's share of it.
  const estimator = new ConservativeTokenEstimator();
  const calls = parts.map((part) => ({ id: part.id, name: part.name, input: part.input }));
  const step = estimator.countMessage({ role: 'assistant', content: '', toolCalls: calls }) + calls.reduce((total, call) => total + estimator.countMessage({ role: 'tool', toolCallId: call.id, toolName: call.name, content: '' }), 0);
  assert.ok(traces.length > 0, `${result.stopReason}: ${String(result.error)}`);
  const budget = traces[0]!.budget!;
  assert.ok(step <= budget.inputCapTokens && step > budget.historyBudgetTokens, `step ${step}, cap ${budget.inputCapTokens}, history ${budget.historyBudgetTokens}`);
  assert.equal(result.stopReason, 'step-refused', String(result.error));
  assert.ok(StepRefusedError.isInstance(result.error) && result.error.code === 'AGENT_STEP_CANNOT_FIT', String(result.error));
  assert.equal(runs, 0, 'no tool ran');
});

test('10,000 calls in one assistant message are refused before any tool runs', async () => {
  let runs = 0;
  const parts = Array.from({ length: 10_000 }, (_, index) => ({ type: 'tool-call' as const, id: `c${index}`, name: 'lookup', input: {} }));
  const { bindings, sessions } = setup({ script: [{ parts }, answer('never')], tools: [tool('lookup', () => ((runs += 1), { content: 'x' }))] });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'flood', prompt: 'Go' }).execute();
  assert.equal(result.stopReason, 'step-refused');
  assert.ok(StepRefusedError.isInstance(result.error) && result.error.code === 'AGENT_STEP_TOO_MANY_CALLS');
  assert.equal(runs, 0, 'no tool ran');
  assert.deepEqual(await stored(sessions, 'flood'), [user('Go')], 'the refused step is not stored');
  assert.deepEqual(result.diagnostics.map((diagnostic) => diagnostic.code), ['AGENT_STEP_TOO_MANY_CALLS']);
});

test('calls whose results could not fit even empty are refused before any tool runs', async () => {
  let runs = 0;
  // 120 calls (under the 128 a step may have) whose assistant message and empty results alone pass a 1,700-token cap.
  const parts = Array.from({ length: 120 }, (_, index) => ({ type: 'tool-call' as const, id: `call_${index}_${'x'.repeat(80)}`, name: 'lookup', input: { page: index } }));
  const { bindings } = setup({ script: [{ parts }, answer('never')], window: 1_700, tools: [tool('lookup', () => ((runs += 1), { content: 'x' }))] });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'overfull', prompt: 'Go' }).execute();
  assert.equal(result.stopReason, 'step-refused', String(result.error));
  assert.ok(StepRefusedError.isInstance(result.error) && result.error.code === 'AGENT_STEP_CANNOT_FIT', String(result.error));
  assert.equal(runs, 0);
});

test('tool arguments nested 600 deep are an error result the model reads, and the run goes on to its answer', async () => {
  let runs = 0;
  const deep = '{"a":'.repeat(600) + '1' + '}'.repeat(600);
  const { bindings, model, traces, sessions } = setup({
    script: [{ parts: [{ type: 'tool-call', id: 'deep1', name: 'lookup', rawInput: deep }] }, answer('The arguments were too deep; I stopped.')],
    tools: [tool('lookup', () => ((runs += 1), { content: 'x' }))],
  });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'deep-arguments', prompt: 'Look it up.' }).execute();
  assert.equal(result.stopReason, 'completed', String(result.error));
  assert.equal(runs, 0, 'no handler was given the arguments');
  const history = await stored(sessions, 'deep-arguments');
  assert.deepEqual(history.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant']);
  const failure = history[2] as ToolResultMessage;
  assert.equal(failure.isError, true);
  assert.equal((JSON.parse(failure.content) as { error: { code: string } }).error.code, 'TOOL_ARGUMENTS_TOO_DEEP');
  assert.equal(model.calls.length, 2, 'the model was asked again');
  assert.match(JSON.stringify(model.calls[1]!.prompt), /TOOL_ARGUMENTS_TOO_DEEP/);
  assertProviderSafe(rules, traces);
});
