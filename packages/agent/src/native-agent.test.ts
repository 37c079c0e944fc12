import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExactTokenEstimator, resolveContextConfiguration, toOpenAIChat, type CanonicalMessage, type ContextTraceV5, type ToolDefinition } from '@strata/context';
import { loadProviderRules } from '@strata/testing';
import { ContextOverflowError, createModelClient, openAIOverflowError, ScriptedLanguageModel, type ScriptedTurn } from '@strata/model';
import { createMemoryStores, openSqliteStores } from '@strata/store';
import { loadSkills, registerStandardTools, skillCatalogContributorFactory, ToolRegistry } from '@strata/tools';
import { createAgentRun, type AgentBindings } from './create-agent-run.js';
import type { AgentEvent } from './agent-events.js';

const rules = await loadProviderRules();
const bigReport = Array.from({ length: 400 }, (_, index) => `line ${index}: measurement ${index * 7} ok, 数据点 ${index}`).join('\n');

const measureTool: ToolDefinition = {
  name: 'measure',
  description: 'Runs a measurement and returns its full report.',
  parameters: { type: 'object', properties: { sample: { type: 'string' } }, required: ['sample'] },
  concurrencySafe: true,
  execute: (input) => ({ content: `report for ${(input as { sample: string }).sample}\n${bigReport}` }),
};

function toolTurn(id: string, sample: string): ScriptedTurn {
  return { parts: [{ type: 'tool-call', id, name: 'measure', input: { sample } }], usage: { inputTokens: 100, outputTokens: 10 } };
}
const answer = (text: string): ScriptedTurn => ({ parts: [{ type: 'text', text }], usage: { inputTokens: 50, outputTokens: 5 } });

function bindingsFor(model: ScriptedLanguageModel, options: { window?: number; stores?: ReturnType<typeof createMemoryStores>; registry?: ToolRegistry } = {}) {
  const stores = options.stores ?? createMemoryStores();
  const registry = options.registry ?? new ToolRegistry();
  if (!registry.has('measure')) registry.register(measureTool);
  if (!registry.has('read_tool_output')) registerStandardTools({ registry, outputStore: stores.toolOutputs });
  const traces: ContextTraceV5[] = [];
  const bindings: AgentBindings = {
    model: createModelClient({ model }),
    tools: registry,
    outputStore: stores.toolOutputs,
    sessionStore: stores.sessions,
    traceSink: { write: async (document) => void traces.push(document.body as ContextTraceV5) },
    configuration: resolveContextConfiguration({ SCIENCE_AGENT_CONTEXT_WINDOW_TOKENS: String(options.window ?? 32_000) }),
  };
  return { bindings, stores, traces };
}

function assertProviderSafe(traces: readonly ContextTraceV5[]): void {
  if (!rules) return;
  for (const trace of traces) {
    const chat = toOpenAIChat(trace.llmInput.messages);
    assert.deepEqual(rules.violations(chat, 'openai'), [], `turn ${trace.turn}`);
    assert.deepEqual(rules.violations(chat, 'anthropic'), [], `turn ${trace.turn}`);
  }
}

test('a run calls a tool, stores its result with a reference, and completes; each input is provider-safe', async () => {
  const model = new ScriptedLanguageModel([toolTurn('m1', 'alpha'), answer('Alpha measured fine.')]);
  const { bindings, stores, traces } = bindingsFor(model);
  const events: AgentEvent[] = [];
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'run-1', prompt: 'Measure alpha.', onEvent: (event) => events.push(event) }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.equal(result.text, 'Alpha measured fine.');
  assert.equal(result.turns, 2);
  assert.deepEqual(result.usage, { inputTokens: 150, outputTokens: 15 });
  const toolMessage = result.finalMessages.find((message) => message.role === 'tool')!;
  assert.ok(toolMessage.role === 'tool' && toolMessage.outputRef);
  assert.equal((await stores.toolOutputs.get(toolMessage.outputRef.id))!.body, toolMessage.content);
  assert.equal(model.calls.length, 2);
  const secondPrompt = JSON.stringify(model.calls[1]!.prompt);
  assert.ok(secondPrompt.includes('report for alpha'), 'the model saw the tool result');
  assert.deepEqual((await stores.sessions.load('run-1'))!.messages, result.finalMessages, 'the session holds the canonical history');
  assert.deepEqual(events.filter((event) => event.type === 'tool-call-end').length, 1);
  assert.deepEqual(result.version.tools, ['measure', 'read_tool_output']);
  assertProviderSafe(traces);
});

test('with maskStoredResults, past results are previews and the newest is sent whole after the history', async () => {
  const model = new ScriptedLanguageModel([toolTurn('m1', 'a'), toolTurn('m2', 'b'), answer('done')]);
  const { bindings, traces } = bindingsFor(model);
  const result = await createAgentRun({ id: 'tester', maskStoredResults: true }, bindings, { contextId: 'run-view', prompt: 'Measure a and b.' }).execute();
  assert.equal(result.stopReason, 'completed');
  const last = traces.at(-1)!.llmInput.messages;
  const results = last.filter((message) => message.role === 'tool');
  assert.ok(results.every((message) => message.role === 'tool' && message.masked), 'every stored result is a preview');
  const tail = last.at(-1)!;
  assert.ok(tail.role === 'user' && tail.content.startsWith('<tool_output tool="measure" call_id="m2"') && tail.content.includes('report for b'), 'the newest body follows the history');
  assert.ok(!result.finalMessages.some((message) => message.role === 'tool' && message.masked), 'the canonical history keeps full bodies');
  assertProviderSafe(traces);
});

test('overflow: one forced pressure pass and exactly one retry of the same turn', async () => {
  const model = new ScriptedLanguageModel([toolTurn('m1', 'a'), toolTurn('m2', 'b'), { throws: openAIOverflowError() }, answer('done')]);
  const { bindings, traces } = bindingsFor(model, { window: 24_000 });
  const events: AgentEvent[] = [];
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'run-2', prompt: 'Measure a then b.', onEvent: (event) => events.push(event) }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.equal(model.calls.length, 4);
  assert.deepEqual(events.filter((event) => event.type === 'overflow-recovery').map((event) => event.type === 'overflow-recovery' && event.attempt), [1]);
  const recovery = traces.find((trace) => trace.recoveryAttempt === 1)!;
  assert.equal(recovery.turn, 3);
  assert.equal(recovery.compaction.reason, 'forced');
  assert.match(recovery.compaction.recovery!.reason, /context overflow/);
  assert.ok(recovery.compaction.compactedOutputRefs.length >= 1, 'the forced pass masked stored outputs');
  const before = JSON.stringify(model.calls[2]!.prompt).length;
  const after = JSON.stringify(model.calls[3]!.prompt).length;
  assert.ok(after < before, 'the retried request is smaller');
  assertProviderSafe(traces);
});

test('overflow when the view already masks every stored result: the retry is assembled for the cap the provider figures give', async () => {
  // The forced pass can only project bodies the view already shows as previews: without a smaller cap the same prompt would go again.
  const model = new ScriptedLanguageModel([toolTurn('m1', 'a'), toolTurn('m2', 'b'), toolTurn('m3', 'c'), { throws: openAIOverflowError({ limitTokens: 16_000, requestedTokens: 20_000 }) }, answer('done')]);
  const { bindings, traces } = bindingsFor(model, { window: 24_000 });
  const result = await createAgentRun({ id: 'tester', maskStoredResults: true }, bindings, { contextId: 'run-masked-overflow', prompt: 'Measure a, b and c.' }).execute();
  assert.equal(result.stopReason, 'completed');
  const failed = traces.find((trace) => trace.turn === 4 && trace.recoveryAttempt === null)!;
  const retried = traces.find((trace) => trace.turn === 4 && trace.recoveryAttempt === 1)!;
  const exact = new ExactTokenEstimator({ family: 'o200k' });
  const size = (trace: typeof failed) => trace.llmInput.messages.reduce((total, message) => total + exact.countMessage(message), 0);
  // The provider counted 25% over its limit: the retry aims at 0.8 of the rejected input, less a tenth.
  assert.ok(size(retried) <= size(failed) * 0.8 * 0.9 * 1.05, `${size(retried)} tokens retried against ${size(failed)} rejected`);
  assert.ok(retried.budget!.inputCapTokens < failed.budget!.inputCapTokens);
  assertProviderSafe(traces);
});

test('two overflows in a row: exactly one retry, then the error surfaces', async () => {
  const model = new ScriptedLanguageModel([{ throws: openAIOverflowError() }, { throws: openAIOverflowError() }, answer('never')]);
  const { bindings } = bindingsFor(model);
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'run-3', prompt: 'Hello' }).execute();
  assert.equal(result.stopReason, 'context-overflow');
  assert.ok(ContextOverflowError.isInstance(result.error));
  assert.equal(model.calls.length, 2);
  assert.deepEqual(result.finalMessages, [{ role: 'user', content: 'Hello' }], 'a failed turn leaves the history as it was');
});

test('a compacted read_skill result is marked unavailable; the skill body never enters the system prompt', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-skills-'));
  try {
    await mkdir(join(directory, 'spectra'));
    const body = Array.from({ length: 300 }, (_, index) => `Step ${index}: calibrate the spectrometer carefully.`).join('\n');
    await writeFile(join(directory, 'spectra', 'SKILL.md'), `---\nname: spectra\ndescription: Analyse spectra.\n---\n${body}\n`);
    const catalog = await loadSkills(directory);
    const registry = new ToolRegistry();
    const stores = createMemoryStores();
    registerStandardTools({ registry, outputStore: stores.toolOutputs, skills: catalog });
    const script: ScriptedTurn[] = [{ parts: [{ type: 'tool-call', id: 's1', name: 'read_skill', input: { name: 'spectra' } }] }];
    for (let index = 0; index < 6; index += 1) script.push(toolTurn(`m${index}`, `sample ${index}`));
    script.push(answer('done'));
    const model = new ScriptedLanguageModel(script);
    const { bindings, traces } = bindingsFor(model, { window: 12_000, stores, registry });
    const result = await createAgentRun({ id: 'tester', contributors: [skillCatalogContributorFactory({ catalog })] }, bindings, { contextId: 'run-4', prompt: 'Analyse the spectra.' }).execute();
    assert.equal(result.stopReason, 'completed');
    assert.equal(result.version.skills[0]!.name, 'spectra');
    for (const trace of traces) {
      const system = trace.llmInput.messages[0]!;
      assert.ok(system.role === 'system' && system.content.includes('spectra') && !system.content.includes('calibrate the spectrometer'));
    }
    const masked = traces.find((trace) => trace.compaction.compactedOutputRefs.length > 0 && trace.llmInput.messages.some((message) => message.role === 'tool' && message.toolCallId === 's1' && message.masked));
    assert.ok(masked, 'compaction masked the read_skill result');
    assert.ok(masked.llmInput.messages.some((message) => message.role === 'user' && message.content.includes('Call read_skill for "spectra" again')));
    assertProviderSafe(traces);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('a run resumes from the SQLite session after a restart', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'strata-resume-'));
  try {
    const path = join(directory, 'strata.db');
    const first = bindingsFor(new ScriptedLanguageModel([toolTurn('m1', 'x'), answer('first done')]), { stores: openSqliteStores({ path }) });
    await createAgentRun({ id: 'tester' }, first.bindings, { contextId: 'resume', prompt: 'Measure x.' }).execute();
    await first.stores.close();
    const model = new ScriptedLanguageModel([answer('second done')]);
    const second = bindingsFor(model, { stores: openSqliteStores({ path }) });
    const result = await createAgentRun({ id: 'tester' }, second.bindings, { contextId: 'resume', prompt: 'And now?' }).execute();
    await second.stores.close();
    assert.equal(result.text, 'second done');
    const roles = result.finalMessages.map((message: CanonicalMessage) => message.role);
    assert.deepEqual(roles, ['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('a window the must-keep history cannot fit ends the run as a context error, naming the cause', async () => {
  const model = new ScriptedLanguageModel([answer('never')]);
  const { bindings } = bindingsFor(model, { window: 200 });
  const result = await createAgentRun({ id: 'tester' }, bindings, { contextId: 'run-small', prompt: '请详细分析这个很长的请求。'.repeat(40) }).execute();
  assert.equal(result.stopReason, 'context-error');
  assert.match(String((result.error as Error).message), /must keep|no room for history/);
  assert.equal(model.calls.length, 0, 'no provider call was made');
});

test('a session store that fails ends the run as a runtime error', async () => {
  const model = new ScriptedLanguageModel([answer('hi')]);
  const { bindings } = bindingsFor(model);
  const failing = { ...bindings, sessionStore: { ...bindings.sessionStore!, append: async () => { throw new Error('disk full'); } } };
  const result = await createAgentRun({ id: 'tester' }, failing, { contextId: 'run-store', prompt: 'Hello' }).execute();
  assert.equal(result.stopReason, 'runtime-error');
  assert.match(String((result.error as Error).message), /disk full/);
});

test('cancelling stops the run as cancelled, in its result and its run-end event, never a throw', async () => {
  const model = new ScriptedLanguageModel([{ parts: [{ type: 'text', text: 'thinking' }, { type: 'hang' }] }]);
  const { bindings } = bindingsFor(model);
  const controller = new AbortController();
  const ends: unknown[] = [];
  const onEvent = (event: AgentEvent) => {
    if (event.type === 'text-delta') controller.abort(new Error('user cancelled'));
    if (event.type === 'run-end') ends.push(event.stopReason);
  };
  const run = createAgentRun({ id: 'tester' }, bindings, { contextId: 'run-5', prompt: 'Go', signal: controller.signal, onEvent });
  const result = await run.execute();
  assert.equal(result.stopReason, 'cancelled');
  assert.deepEqual(ends, ['cancelled']);
  assert.deepEqual(result.finalMessages, [{ role: 'user', content: 'Go' }]);
});

test('a stalled model ends the run by the run deadline or the idle timeout, with its reason', async () => {
  for (const [profile, reason] of [[{ runTimeoutMs: 30 }, 'timeout'], [{ idleTimeoutMs: 30 }, 'idle-timeout']] as const) {
    const model = new ScriptedLanguageModel([{ parts: [{ type: 'hang' }] }]);
    const { bindings } = bindingsFor(model);
    const result = await createAgentRun({ id: 'tester', ...profile }, bindings, { contextId: `stall-${reason}`, prompt: 'Go' }).execute();
    assert.equal(result.stopReason, reason);
    assert.deepEqual(result.finalMessages, [{ role: 'user', content: 'Go' }]);
  }
});

test('each trace records what the model made of its input: the output, the provider usage beside our estimate, and latencies', async () => {
  const model = new ScriptedLanguageModel([toolTurn('m1', 'a'), { throws: openAIOverflowError() }, answer('done')]);
  const { bindings, traces } = bindingsFor(model);
  let clock = 0;
  const result = await createAgentRun({ id: 'tester' }, { ...bindings, now: () => (clock += 5) }, { contextId: 'run-calls', prompt: 'Measure a.' }).execute();
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(traces.map((trace) => [trace.turn, trace.recoveryAttempt, trace.modelCall?.outcome]), [[1, null, 'finish'], [2, null, 'error'], [2, 1, 'finish']]);
  const [first, overflowed, retried] = traces as [ContextTraceV5, ContextTraceV5, ContextTraceV5];
  assert.deepEqual(first.modelCall!.output!.toolCalls!.map((call) => call.id), ['m1']);
  assert.deepEqual(first.modelCall!.usage, { inputTokens: 100, outputTokens: 10, cachedInputTokens: null, cacheWriteInputTokens: null });
  assert.ok(first.budget!.totalTokens > 0, 'our estimate stands beside the provider usage');
  assert.ok(first.modelCall!.latencyMs.assembly > 0 && first.modelCall!.latencyMs.model > 0);
  assert.equal(overflowed.modelCall!.output, null);
  assert.match(overflowed.modelCall!.error!.name, /ContextOverflowError/);
  assert.equal(retried.modelCall!.output!.content, 'done');
});
