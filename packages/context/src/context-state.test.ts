import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { historyArbitrary, loadSweAgentConversations, loadTauBenchConversations, memoryOutputStore, scriptedSummarizer, stepsOf, withCallIdSuffix } from '@strata/testing';
import { createContextPipeline } from './context-pipeline.js';
import { resolveContextBudget } from './context-configuration.js';
import { checkContextState, INITIAL_CONTEXT_STATE, type ContextState } from './context-state.js';
import { ContextInputError } from './errors/context-input-error.js';
import type { CanonicalMessage } from './messages.js';
import type { ToolOutputStore } from './ports.js';

/** Stores every long tool result, as a run does before it enters the session. */
async function stored(store: ToolOutputStore, contextId: string, message: CanonicalMessage): Promise<CanonicalMessage> {
  if (message.role !== 'tool' || message.content.length < 1_024) return message;
  return { ...message, outputRef: await store.put({ contextId, toolCallId: message.toolCallId, toolName: message.toolName, body: message.content }) };
}

/**
 * Runs `turns` model turns over `steps` (repeated with fresh call ids) at
 * `cap`: each turn a warm assembler (one per run) and a fresh one (made for
 * that turn alone) are given the same session and context state; their
 * inputs and states must be byte-identical. Returns the turns compacted.
 */
async function compareWarmAndFresh(options: { task: string; steps: readonly CanonicalMessage[][]; turns: number; cap: number; summarize: boolean }): Promise<{ compacted: number; cut: number }> {
  const contextId = 'run';
  const store = memoryOutputStore();
  const pipeline = () =>
    createContextPipeline({
      contextId,
      budget: resolveContextBudget({ inputCapTokens: options.cap }),
      goal: options.task,
      summarizer: options.summarize ? scriptedSummarizer : undefined,
      outputStore: store,
      now: () => 0,
    }).assembler;
  const warm = pipeline();
  let session: CanonicalMessage[] = [{ role: 'user', content: options.task }];
  let state: ContextState | undefined;
  let compacted = 0;
  let cut = 0;
  for (let turn = 1; turn <= options.turns; turn += 1) {
    const request = { contextId, turn, history: session, tools: [], state };
    const kept = await warm.assemble(request);
    const fresh = await pipeline().assemble(structuredClone(request));
    assert.equal(JSON.stringify(fresh.input), JSON.stringify(kept.input), `cap ${options.cap}, turn ${turn}: the inputs differ`);
    assert.deepEqual(fresh.state, kept.state, `cap ${options.cap}, turn ${turn}: the states differ`);
    assert.equal(JSON.stringify(fresh.history), JSON.stringify(kept.history), `cap ${options.cap}, turn ${turn}: the compacted histories differ`);
    if (kept.historyChanged) compacted += 1;
    if (kept.trace.renderedContext!.window.droppedUnits > 0) cut += 1;
    // The session as a store keeps it: a JSON copy, so no object is shared between turns.
    state = JSON.parse(JSON.stringify(kept.state)) as ContextState;
    const step = options.steps[(turn - 1) % options.steps.length]!.map((message) => withCallIdSuffix(message, `-${turn}`));
    const appended: CanonicalMessage[] = [];
    for (const message of step) appended.push(await stored(store, contextId, message));
    session = JSON.parse(JSON.stringify([...kept.history, ...appended])) as CanonicalMessage[];
  }
  return { compacted, cut };
}

test('property: a fresh assembler given the session and its context state sends what a warm one sends, turn for turn (generated histories, 200 turns, with compaction)', async () => {
  await fc.assert(
    fc.asyncProperty(historyArbitrary({ open: false, maxSteps: 12 }), fc.constantFrom(2_500, 4_096, 8_192), async (history, cap) => {
      const steps = stepsOf(history);
      fc.pre(steps.length > 0);
      for (const summarize of [true, false]) await compareWarmAndFresh({ task: 'Work through the steps and report.', steps, turns: 200, cap, summarize });
    }),
    { numRuns: 4 },
  );
});

const tauBench = loadTauBenchConversations();
const sweAgent = loadSweAgentConversations();

test('a fresh assembler given the session and its context state sends what a warm one sends on real runs of 200 turns at several caps, compaction included', { skip: tauBench && sweAgent ? false : '../shared is absent' }, async () => {
  let compacted = 0;
  let cut = 0;
  for (const conversation of [tauBench![0]!, sweAgent![0]!]) {
    const task = conversation.messages.find((message) => message.role === 'user')?.content;
    for (const cap of [2_500, 4_096, 8_192]) {
      for (const summarize of [true, false]) {
        const run = await compareWarmAndFresh({ task: typeof task === 'string' ? task : 'Go on.', steps: stepsOf(conversation.messages), turns: 200, cap, summarize });
        compacted += run.compacted;
        cut += run.cut;
      }
    }
  }
  // The comparison covers what decides bytes between turns: compactions and window cuts.
  assert.ok(compacted > 0, 'the runs must compact');
  assert.ok(cut > 0, 'the runs must cut the window');
});

test('a context state is read from any value: the initial state for nothing, a typed error naming the field for anything else', () => {
  assert.equal(checkContextState(undefined), INITIAL_CONTEXT_STATE);
  assert.equal(checkContextState(null), INITIAL_CONTEXT_STATE);
  const state = { version: 1, windowStart: { index: 4, fingerprint: 'f-1', before: [{ index: 0, fingerprint: 'f-0' }] }, capacityStep: 3, lastInputTokens: 1_000 };
  assert.deepEqual(checkContextState(JSON.parse(JSON.stringify(state))), state);
  fc.assert(
    fc.property(fc.anything(), (value) => {
      try {
        const checked = checkContextState(value);
        assert.equal(checked.version, 1);
      } catch (error) {
        assert.ok(ContextInputError.isInstance(error), String(error));
        assert.match(error.culprit, /^state/);
      }
    }),
    { numRuns: 500 },
  );
  for (const [value, culprit] of [
    [{ version: 2 }, 'state.version'],
    [{ version: 1, capacityStep: 1.5 }, 'state.capacityStep'],
    [{ version: 1, lastInputTokens: -3 }, 'state.lastInputTokens'],
    [{ version: 1, windowStart: { index: 'a', fingerprint: 'x' } }, 'state.windowStart.index'],
    [{ version: 1, windowStart: { index: 1, fingerprint: '' } }, 'state.windowStart.fingerprint'],
    [{ version: 1, windowStart: { index: 1, fingerprint: 'x', before: {} } }, 'state.windowStart.before'],
    [{ version: 1, windowStart: { index: 1, fingerprint: 'x', before: [{ index: 0, fingerprint: 'y' }, { index: -1, fingerprint: 'z' }] } }, 'state.windowStart.before[1].index'],
    [[], 'state'],
  ] as const) {
    assert.throws(() => checkContextState(value), (error: unknown) => ContextInputError.isInstance(error) && error.culprit === culprit, JSON.stringify(value));
  }
});
