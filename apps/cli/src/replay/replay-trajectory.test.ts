import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentRun } from '@strata/agent';
import { ExactTokenEstimator, GOAL_SECTION_ID, isTaskAnchorCandidate, resolveContextConfiguration, toOpenAIChat, type AssistantMessage, type CanonicalMessage, type ModelInput } from '@strata/context';
import type { ModelClient } from '@strata/model';
import { loadProviderRules, loadSweAgentConversations, loadTauBenchConversations } from '@strata/testing';
import { createMemoryStores, createMemoryToolOutputStore } from '@strata/store';
import { createReadToolOutputTool, ToolRegistry } from '@strata/tools';
import { replayTrajectory, type ReplayResult } from './replay-trajectory.js';

const rules = await loadProviderRules();
const tauBench = loadTauBenchConversations();
const sweAgent = loadSweAgentConversations();

/** Reads a stored body back through the tool, part by part, following each answer's `next`. */
async function readAll(tool: ReturnType<typeof createReadToolOutputTool>, contextId: string, first: Record<string, unknown>): Promise<string> {
  let text = '';
  let args: Record<string, unknown> | null = first;
  const modes = new Set<string>();
  for (let parts = 0; args && parts < 10_000; parts += 1) {
    const outcome = await tool.execute(args as never, { contextId, toolCallId: 'read', signal: new AbortController().signal });
    assert.notEqual(outcome.isError, true, outcome.content);
    const data = outcome.data as { mode: string; next: Record<string, unknown> | null };
    modes.add(data.mode);
    text += outcome.content.slice(outcome.content.indexOf('\n') + 1);
    args = data.next;
  }
  return text;
}

const cases = [
  ...(tauBench ?? []).slice(0, 60).map((conversation) => ({ conversation, window: 4_096 })),
  ...(sweAgent ?? []).map((conversation) => ({ conversation, window: 4_096 })),
];

test('replay of real trajectories under a small window: valid inputs, anchor kept, every masked result recoverable', { skip: tauBench && sweAgent ? false : '../shared is absent' }, async () => {
  const exact = new ExactTokenEstimator({ family: 'o200k' });
  let masked = 0;
  let compacted = 0;
  let charRangeReads = 0;
  for (const { conversation, window } of cases) {
    const backing = createMemoryToolOutputStore();
    // What each reference was given, kept apart from the store's own read path.
    const originals = new Map<string, string>();
    const store = { ...backing, put: async (output: Parameters<typeof backing.put>[0]) => { const ref = await backing.put(output); originals.set(ref.id, output.body); return ref; } };
    const contextId = `${conversation.source}#${conversation.index}`;
    const replay = await replayTrajectory({ trajectory: conversation.messages, contextId, windowTokens: window, store, compaction: {}, exactEstimator: exact });
    compacted += replay.compactions;
    const tool = createReadToolOutputTool({ store });
    const recovered = new Set<string>();
    for (const turn of replay.turns) {
      const sent = turn.assembled.input.messages;
      if (rules) {
        const chat = toOpenAIChat(sent);
        assert.deepEqual(rules.violations(chat, 'openai'), [], `${contextId} call ${turn.trajectoryIndex}`);
        assert.deepEqual(rules.violations(chat, 'anthropic'), [], `${contextId} call ${turn.trajectoryIndex}`);
      }
      const sentSet = new Set(sent);
      // No unit split: every call is answered right after its message, and every result follows its call.
      sent.forEach((message, index) => {
        if (message.role === 'assistant') {
          const calls = (message.toolCalls ?? []).map((call) => call.id);
          const results = sent.slice(index + 1, index + 1 + calls.length).map((next) => (next.role === 'tool' ? next.toolCallId : undefined));
          assert.deepEqual([...results].sort(), [...calls].sort(), `${contextId} call ${turn.trajectoryIndex}: a unit was split at message ${index}`);
        }
        if (message.role === 'tool') {
          let at = index - 1;
          while (at >= 0 && sent[at]!.role === 'tool') at -= 1;
          const owner = sent[at];
          assert.ok(owner?.role === 'assistant' && owner.toolCalls?.some((call) => call.id === message.toolCallId), `${contextId} call ${turn.trajectoryIndex}: result ${message.toolCallId} has no call before it`);
        }
      });
      const anchor = turn.canonical.findLast(isTaskAnchorCandidate);
      if (anchor) assert.ok(sentSet.has(anchor), `${contextId} call ${turn.trajectoryIndex}: the anchor is missing`);
      assert.ok(turn.assembled.trace.budget!.totalTokens <= window);
      for (const message of sent) {
        if (message.role !== 'tool' || !message.masked || recovered.has(message.outputRef!.id)) continue;
        recovered.add(message.outputRef!.id);
        masked += 1;
        const ref = message.outputRef!.id;
        const original = { content: originals.get(ref)! };
        assert.ok(conversation.messages.some((candidate) => candidate.role === 'tool' && candidate.content === original.content));
        // Query first: a line of the body is found by a literal piece of it.
        const needle = original.content.split('\n').find((line) => line.trim().length > 8)?.trim().slice(0, 24);
        if (needle) {
          const found = await tool.execute({ ref, query: needle } as never, { contextId, toolCallId: 'q', signal: new AbortController().signal });
          assert.ok(found.content.includes(needle.slice(0, 12)), `${contextId}: query found nothing for ${ref}`);
        }
        // Then the whole body, by line ranges (and character ranges on over-wide lines).
        const body = await readAll(tool, contextId, { ref, lines: { start: 1 } });
        assert.equal(body, original.content, `${contextId}: ${ref} not recovered byte-exact`);
        if (!original.content.includes('\n')) {
          assert.equal(await readAll(tool, contextId, { ref, chars: { start: 0 } }), original.content);
          charRangeReads += 1;
        }
      }
    }
  }
  console.log(`# replay: ${cases.length} trajectories, ${compacted} compactions, ${masked} masked results recovered byte-exact (${charRangeReads} by character range)`);
  assert.ok(compacted > 0 && masked > 20 && charRangeReads > 5, 'the window was small enough to force compaction');
});

test("customer-service replays at 2,048 tokens: with the goal snapshot the customer's first message reaches every model call", { skip: tauBench ? false : '../shared is absent' }, async () => {
  const counts = { withoutGoal: 0, withGoal: 0, calls: 0, unassemblable: 0 };
  for (const conversation of tauBench ?? []) {
    const first = conversation.messages.find((message) => message.role === 'user');
    if (first?.role !== 'user') continue;
    const contextId = `${conversation.source}#${conversation.index}`;
    const replays: ReplayResult[] = [];
    try {
      for (const goalSnapshot of [false, true]) replays.push(await replayTrajectory({ trajectory: conversation.messages, contextId, windowTokens: 2_048, store: createMemoryToolOutputStore(), compaction: {}, goalSnapshot }));
    } catch (error) {
      // A step that cannot fit 2,048 tokens at all fails before any provider call, with or without the snapshot.
      assert.equal((error as { code?: string }).code, 'CONTEXT_WINDOW_MUST_KEEP_OVER_BUDGET');
      counts.unassemblable += 1;
      continue;
    }
    const needle = JSON.stringify(first.content).slice(1, -1);
    const absent = (turns: ReplayResult['turns']) => turns.filter((turn) => !JSON.stringify(turn.assembled.input.messages).includes(needle)).length;
    counts.calls += replays[0]!.turns.length;
    counts.withoutGoal += absent(replays[0]!.turns);
    counts.withGoal += absent(replays[1]!.turns);
  }
  console.log(`# goal snapshot: first message absent from ${counts.withoutGoal} of ${counts.calls} calls without it, ${counts.withGoal} with it (${counts.unassemblable} conversations cannot fit 2,048 tokens)`);
  assert.ok(counts.calls > 100);
  assert.equal(counts.withGoal, 0);
});

test('replaying an agent run from its session reproduces every input the run sent, goal snapshot where due', async () => {
  const window = 3_000;
  const part = (index: number) => Array.from({ length: 30 + ((index * 17) % 60) }, (_, line) => `[part ${index} line ${line}] request ${index * 100 + line} took ${(index * 7 + line * 13) % 400} ms`).join('\n');
  const sent: ModelInput[] = [];
  // A model that reads eighteen parts of a log, one per turn, then answers: a function of its input alone.
  const model: ModelClient = {
    provider: 'scripted',
    modelId: 'log-reader',
    async *stream(request) {
      sent.push({ messages: request.messages, tools: request.tools ?? [] });
      const read = Math.max(0, ...request.messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls ?? [] : []).map((call) => Number(call.id.slice('call_'.length)))));
      const message: AssistantMessage = read < 18 ? { role: 'assistant', content: '', toolCalls: [{ id: `call_${read + 1}`, name: 'read_log', input: { part: read + 1 } }] } : { role: 'assistant', content: 'All parts read.' };
      yield { type: 'finish', reason: message.toolCalls ? 'tool-calls' : 'stop', message, usage: {}, warnings: [] };
    },
  };
  const tools = new ToolRegistry();
  tools.register({ name: 'read_log', description: 'Reads one part of the log.', parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] }, execute: (input) => ({ content: part((input as { part: number }).part) }) });
  const stores = createMemoryStores();
  const configuration = resolveContextConfiguration({}, { modelContextTokens: window + 1_000 });
  const result = await createAgentRun({ id: 'reader' }, { model, tools, outputStore: stores.toolOutputs, sessionStore: stores.sessions, configuration }, { contextId: 'recorded', prompt: 'Read the whole log.' }).execute();
  assert.equal(result.stopReason, 'completed', String(result.error ?? ''));
  assert.ok(result.finalMessages.some((message) => message.role === 'tool' && message.masked === true), 'the run must compact for the replay to cover it');

  // The recorded run as its session holds it: every message the run appended, in order (compaction versions rewrite, they append nothing).
  const trajectory: CanonicalMessage[] = [];
  let previous: readonly CanonicalMessage[] = [];
  for (const version of await stores.sessions.versions('recorded')) {
    const stored = (await stores.sessions.loadVersion('recorded', version))!;
    if (stored.compaction === undefined) trajectory.push(...stored.messages.slice(previous.length));
    previous = stored.messages;
  }
  const replay = await replayTrajectory({ trajectory, contextId: 'recorded', windowTokens: configuration.contextWindowTokens ?? window, store: stores.toolOutputs, compaction: {}, tools: tools.visibleTools() });
  assert.equal(replay.turns.length, sent.length);
  replay.turns.forEach((turn, index) => {
    assert.equal(JSON.stringify(turn.assembled.input), JSON.stringify(sent[index]), `turn ${index + 1}`);
    // The goal snapshot exactly when the history no longer holds the request.
    const holds = turn.canonical.some((message) => message.role === 'user' && message.hidden !== true && message.content === trajectory.find((first) => first.role === 'user')?.content);
    assert.equal(turn.assembled.trace.renderedContext!.sectionIds.includes(GOAL_SECTION_ID), !holds, `turn ${index + 1}: the goal snapshot`);
  });
});
