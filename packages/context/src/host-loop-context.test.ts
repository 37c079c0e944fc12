import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalMessage, ToolOutputRef } from './messages.js';
import type { PutToolOutput, SessionStore, SessionVersion, StoredToolOutput, ToolOutputStore } from './ports.js';
import { createHostLoopContext } from './host-loop-context.js';

/** The fake store's reference ids renamed by order of first appearance per run (the same bytes otherwise). */
function renumbered(inputs: readonly string[]): string[] {
  const names = new Map<string, string>();
  return inputs.map((input) => input.replace(/out-\d+/g, (ref) => names.get(ref) ?? (names.set(ref, `ref#${names.size + 1}`), names.get(ref)!)));
}

function memoryStore(): ToolOutputStore & { puts: PutToolOutput[] } {
  const outputs = new Map<string, StoredToolOutput>();
  const puts: PutToolOutput[] = [];
  return {
    puts,
    async put(output) {
      puts.push(output);
      // Of one width: runs interleaved in one store get ids of the length each gets alone (an id's characters are
      // counted, and a window near its budget can turn on one more digit).
      const ref: ToolOutputRef = { id: `out-${String(puts.length).padStart(4, '0')}`, chars: output.body.length, lines: output.body.split('\n').length, bytes: Buffer.byteLength(output.body) };
      outputs.set(ref.id, { ...output, ref, createdAt: '2026-01-01T00:00:00.000Z' });
      return ref;
    },
    async get(id) {
      return outputs.get(id);
    },
    async close() {},
  };
}

/** A session store fake of the port (the real ones are in @strata/store, which this package may not import): versions as whole copies. */
function sessionStore(): SessionStore {
  const versions = new Map<string, SessionVersion[]>();
  const write = (contextId: string, messages: readonly CanonicalMessage[], expected: number | undefined, state: SessionVersion['state']): SessionVersion => {
    const list = versions.get(contextId) ?? [];
    if (expected !== undefined && expected !== list.length) throw Object.assign(new Error('conflict'), { code: 'SESSION_VERSION_CONFLICT' });
    const version: SessionVersion = { contextId, version: list.length + 1, messages: structuredClone([...messages]), createdAt: '', state: structuredClone(state ?? list.at(-1)?.state) };
    versions.set(contextId, [...list, version]);
    return version;
  };
  return {
    async append(contextId, messages, options) {
      return write(contextId, [...((versions.get(contextId) ?? []).at(-1)?.messages ?? []), ...messages], options?.expectedVersion, options?.state);
    },
    async replace(contextId, messages, compaction, options) {
      return write(contextId, messages, compaction.replacedFromVersion, options?.state);
    },
    async load(contextId) {
      return structuredClone((versions.get(contextId) ?? []).at(-1));
    },
    async versions(contextId) {
      return (versions.get(contextId) ?? []).map((version) => version.version);
    },
    async loadVersion(contextId, version) {
      return structuredClone((versions.get(contextId) ?? [])[version - 1]);
    },
    async close() {},
  };
}

const task: CanonicalMessage = { role: 'user', content: 'Summarise the log.' };
const call: CanonicalMessage = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_log', input: {} }] };
const result: CanonicalMessage = { role: 'tool', toolCallId: 'c1', toolName: 'read_log', content: 'x'.repeat(2_000) };

test('each turn appends what the host added, stores large results once, and sends unchanged messages with their origins', async () => {
  const store = memoryStore();
  const context = createHostLoopContext<string>({ budget: { inputCapTokens: 50_000 }, outputStore: store, sessionStore: sessionStore() });
  const first = await context.prepare({ contextId: 'c', messages: [{ message: task, origin: 'task' }] });
  // The request is in the history, so no goal snapshot copies it into a system message: only the host's message goes.
  assert.deepEqual(first.messages.map(({ origin }) => origin), ['task']);
  const second = await context.prepare({ contextId: 'c', messages: [{ message: task, origin: 'task' }, { message: call, origin: 'call' }, { message: result, origin: 'result' }] });
  assert.equal(store.puts.length, 1, 'the large result is stored');
  // The stored result is shown as its preview (the masked view every run uses), its whole body once more as call-local data: both Strata's.
  assert.deepEqual(second.messages.map(({ origin }) => origin), ['task', 'call', undefined, undefined]);
  assert.match(second.messages[3]!.message.content as string, /status="full"/);
  const stored = second.assembled.history.at(-1) as Extract<CanonicalMessage, { role: 'tool' }>;
  assert.equal(stored.outputRef?.id, 'out-0001');
  // The next turn reuses the stored history: nothing is stored twice.
  await context.prepare({ contextId: 'c', messages: [{ message: task, origin: 'task' }, { message: call, origin: 'call' }, { message: result, origin: 'result' }, { message: { role: 'user', content: 'Thanks.' }, origin: 'thanks' }] });
  assert.equal(store.puts.length, 1);
  assert.equal(await context.lastTurn('c'), 3);
});

test('a new instance over the same stores continues a context exactly as the first would have', async () => {
  const outputs = memoryStore();
  const sessions = sessionStore();
  const settings = { budget: { inputCapTokens: 1_200 }, outputStore: outputs, sessionStore: sessions };
  const warmOutputs = memoryStore();
  const reference = createHostLoopContext<string>({ ...settings, outputStore: warmOutputs, sessionStore: sessionStore() });
  const messages: { message: CanonicalMessage; origin: string }[] = [{ message: task, origin: 'task' }];
  for (let step = 0; step < 12; step += 1) {
    const id = `c${step}`;
    messages.push({ message: { role: 'assistant', content: '', toolCalls: [{ id, name: 'read_log', input: { step } }] }, origin: `call${step}` });
    messages.push({ message: { role: 'tool', toolCallId: id, toolName: 'read_log', content: `line ${step}\n`.repeat(150 + step) }, origin: `result${step}` });
    // A new adapter instance for every call, over the same stores, against one instance kept for the whole run.
    const fresh = await createHostLoopContext<string>(settings).prepare({ contextId: 'run', messages });
    const kept = await reference.prepare({ contextId: 'run', messages });
    assert.equal(JSON.stringify(fresh.assembled.input), JSON.stringify(kept.assembled.input), `call ${step + 1}`);
    assert.deepEqual(fresh.assembled.state, kept.assembled.state);
  }
});

test('a history that no longer starts with what the host passed before starts the context over', async () => {
  const store = memoryStore();
  const context = createHostLoopContext<string>({ budget: { inputCapTokens: 50_000 }, outputStore: store, sessionStore: sessionStore() });
  await context.prepare({ contextId: 'c', messages: [{ message: task, origin: 'task' }, { message: call, origin: 'call' }, { message: result, origin: 'result' }] });
  const other: CanonicalMessage = { role: 'user', content: 'Something else.' };
  const turn = await context.prepare({ contextId: 'c', messages: [{ message: other, origin: 'other' }] });
  // The context started over: the new conversation's request alone.
  assert.deepEqual(turn.messages.map(({ message }) => message), [other]);
  assert.equal(turn.assembled.trace.turn, 2);
});

/** A run's host messages after `steps` tool steps: its task, then a call and a large result per step. */
function runMessages(name: string, steps: number, callPrefix = 'c'): { message: CanonicalMessage; origin: string }[] {
  const messages: { message: CanonicalMessage; origin: string }[] = [{ message: { role: 'user', content: `Summarise the ${name} log.` }, origin: 'task' }];
  for (let step = 0; step < steps; step += 1) {
    const id = `${callPrefix}${step}`;
    messages.push({ message: { role: 'assistant', content: '', toolCalls: [{ id, name: 'read_log', input: { step } }] }, origin: `call${step}` });
    messages.push({ message: { role: 'tool', toolCallId: id, toolName: 'read_log', content: `${name} line ${step}\n`.repeat(150 + step) }, origin: `result${step}` });
  }
  return messages;
}

/** Two runs' calls interleaved step by step (0 then 1, then 1 then 0, ...); each run's inputs, contexts and stored bodies. */
async function interleaved(runs: ReadonlyArray<{ name: string; callPrefix: string; run?: object }>, steps: number) {
  const outputs = memoryStore();
  const context = createHostLoopContext<string>({ budget: { inputCapTokens: 1_500 }, outputStore: outputs, sessionStore: sessionStore() });
  const inputs: string[][] = runs.map(() => []);
  // From each run's second call on: its first (the opening alone) is the same bytes in any context of that opening.
  const contextIds: Set<string>[] = runs.map(() => new Set());
  for (let step = 0; step <= steps; step += 1) {
    for (const index of step % 2 === 0 ? [0, 1] : [1, 0]) {
      const { name, callPrefix, run } = runs[index]!;
      const turn = await context.prepare({ scope: 'test', run, messages: runMessages(name, step, callPrefix) });
      inputs[index]!.push(JSON.stringify(turn.assembled.input));
      if (step > 0 || run !== undefined) contextIds[index]!.add(turn.contextId);
    }
  }
  return { inputs, contextIds, bodies: (contextId: string) => outputs.puts.filter((put) => put.contextId === contextId).map((put) => put.body) };
}

test('runs that name no context each get their own, also with identical openings and interleaved calls', async () => {
  const steps = 10;
  const alone = async (name: string, callPrefix: string): Promise<string[]> => {
    const context = createHostLoopContext<string>({ budget: { inputCapTokens: 1_500 }, outputStore: memoryStore(), sessionStore: sessionStore() });
    const inputs: string[] = [];
    for (let step = 0; step <= steps; step += 1) inputs.push(JSON.stringify((await context.prepare({ messages: runMessages(name, step, callPrefix) })).assembled.input));
    return inputs;
  };
  const cases = [
    { label: 'different tasks', runs: [{ name: 'alpha', callPrefix: 'c' }, { name: 'beta', callPrefix: 'c' }] },
    // The same task: the models' call ids tell the runs apart after their first calls, which are identical.
    { label: 'identical tasks', runs: [{ name: 'alpha', callPrefix: 'a' }, { name: 'alpha', callPrefix: 'b' }] },
    // Identical in every message, call ids too: only the run's identity tells them apart.
    { label: 'identical runs with their identities', runs: [{ name: 'alpha', callPrefix: 'c', run: {} }, { name: 'alpha', callPrefix: 'c', run: {} }] },
  ];
  for (const { label, runs } of cases) {
    const { inputs, contextIds, bodies } = await interleaved(runs, steps);
    for (const [index, { name, callPrefix }] of runs.entries()) {
      assert.deepEqual(renumbered(inputs[index]!), renumbered(await alone(name, callPrefix)), `${label}: run ${index}'s requests are those it sends alone`);
      assert.equal(contextIds[index]!.size, 1, `${label}: run ${index} stays in one context`);
      // Each of its results was stored once, in its own context.
      assert.deepEqual(bodies([...contextIds[index]!][0]!), runMessages(name, steps, callPrefix).flatMap(({ message }) => (message.role === 'tool' ? [message.content] : [])));
    }
    assert.notEqual([...contextIds[0]!][0], [...contextIds[1]!][0], `${label}: two contexts`);
    assert.match([...contextIds[0]!][0]!, /^test:/);
  }
});

test('a run that continues a finished one continues its context; a run given as `run` keeps its own context', async () => {
  const context = createHostLoopContext<string>({ budget: { inputCapTokens: 50_000 }, outputStore: memoryStore(), sessionStore: sessionStore() });
  const first = await context.prepare({ messages: runMessages('alpha', 2) });
  // A chat's next request: the whole history again, and more.
  const next = await context.prepare({ messages: [...runMessages('alpha', 2), { message: { role: 'user', content: 'And now?' }, origin: 'more' }] });
  assert.equal(next.contextId, first.contextId);
  assert.equal(next.assembled.trace.turn, 2);
  // The same history once more, without a run: another run with that opening, in a context of its own.
  const again = await context.prepare({ messages: runMessages('alpha', 2) });
  assert.notEqual(again.contextId, first.contextId);
  // With a run: every call of it, a repeated one too, stays in its context.
  const run = {};
  const bound = await context.prepare({ run, messages: runMessages('beta', 1) });
  const repeated = await context.prepare({ run, messages: runMessages('beta', 1) });
  assert.equal(repeated.contextId, bound.contextId);
  assert.equal(repeated.assembled.trace.turn, 2);
});

test("an adapter's own messages join the history after the host's, the host's next history (without them) continues the context, and a retry without them starts it over", async () => {
  const sessions = sessionStore();
  const context = createHostLoopContext<string>({ budget: { inputCapTokens: 50_000 }, outputStore: memoryStore(), sessionStore: sessions });
  const host = [{ message: task, origin: 'task' }];
  const round = [
    { message: { role: 'assistant', content: '', toolCalls: [{ id: 'r1', name: 'read_tool_output', input: { ref: 'out-0001' } }] } as CanonicalMessage, origin: 'read' },
    { message: { role: 'tool', toolCallId: 'r1', toolName: 'read_tool_output', content: 'the head' } as CanonicalMessage, origin: 'answer' },
  ];
  await context.prepare({ contextId: 'g', messages: host });
  const withRound = await context.prepare({ contextId: 'g', messages: host, ownMessages: round });
  assert.deepEqual(withRound.assembled.history.map((message) => message.role), ['user', 'assistant', 'tool']);
  // The round grows within one host history: only the new own messages are added.
  const second = [{ message: { role: 'assistant', content: '', toolCalls: [{ id: 'r2', name: 'read_tool_output', input: { ref: 'out-0001' } }] } as CanonicalMessage, origin: 'read2' }, { message: { role: 'tool', toolCallId: 'r2', toolName: 'read_tool_output', content: 'the tail' } as CanonicalMessage, origin: 'answer2' }];
  const grown = await context.prepare({ contextId: 'g', messages: host, ownMessages: [...round, ...second] });
  assert.equal(grown.assembled.history.length, 5);
  // The host's next history has its answer and a new request, not the rounds: they stay where they were.
  const next = [...host, { message: { role: 'assistant', content: 'The log is fine.' } as CanonicalMessage, origin: 'final' }, { message: { role: 'user', content: 'Thanks.' } as CanonicalMessage, origin: 'thanks' }];
  const continued = await createHostLoopContext<string>({ budget: { inputCapTokens: 50_000 }, outputStore: memoryStore(), sessionStore: sessions }).prepare({ contextId: 'g', messages: next });
  assert.deepEqual(continued.assembled.history.map((message) => message.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user']);
  assert.equal((await sessions.load('g'))?.compaction, undefined, 'appended, not replaced');
  // The same host history again with fewer own messages (a retry): started over from what the call passed.
  const retried = await context.prepare({ contextId: 'g', messages: next, ownMessages: [] });
  assert.equal(retried.assembled.history.length, 7, 'the same host messages and none of its own: the stored history continues');
  const restarted = await context.prepare({ contextId: 'g', messages: host, ownMessages: [] });
  assert.deepEqual(restarted.assembled.history.map((message) => message.role), ['user'], 'a shorter host history with no rounds starts over');
});
