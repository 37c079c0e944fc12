import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { PENDING_USAGE_CALLS, type ContextDiagnostic, type ContextTraceV5, type TraceSink } from '@strata/context';
import { createMemorySessionStore } from '@strata/store';
import { startChatTestServer, type ChatReply } from '@strata/testing';
import { MockLanguageModelV3 } from 'ai/test';
import { createStrataAiSdk, strataPrepareStep } from './strata-ai-sdk.js';

/** Part n of the log: `lines[n - 1]` lines. */
function readLog(lines: readonly number[]) {
  return tool({
    description: 'Reads one part of the log.',
    inputSchema: jsonSchema<{ part: number }>({ type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] }),
    execute: async ({ part }) => Array.from({ length: lines[part - 1]! }, (_, line) => `line ${line}: request handled in 12 ms`).join('\n'),
  });
}

const readParts = (parts: number) => (call: number): ChatReply => (call <= parts ? { toolCall: { id: `call_${call}`, name: 'read_log', input: { part: call } } } : { text: 'done' });

function memoryTraces(): TraceSink & { documents: ContextTraceV5[] } {
  const documents: ContextTraceV5[] = [];
  return { documents, async write(document) { documents.push(document.body as ContextTraceV5); } };
}

for (const mode of ['generate', 'stream'] as const) {
  test(`AI SDK middleware (${mode}), real HTTP: a server that cuts the prompt silently is reported on the first turn it does, the trace holds its count beside ours`, async () => {
    const server = await startChatTestServer({ wire: 'openai', reply: readParts(3), windowTokens: 2_000, truncate: true });
    try {
      const diagnostics: ContextDiagnostic[] = [];
      const traces = memoryTraces();
      const strata = createStrataAiSdk({ budget: { inputCapTokens: 30_000 }, traceSink: traces, onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
      const model = wrapLanguageModel({ model: createOpenAICompatible({ name: 'local', baseURL: server.baseURL, includeUsage: true }).chatModel('qwen3:8b'), middleware: strata.middleware });
      const options = { model, prompt: 'Read the whole log.', tools: { read_log: readLog([5, 5, 400]) }, stopWhen: stepCountIs(6) };
      const text = mode === 'generate' ? (await generateText(options)).text : await streamText(options).text;
      assert.equal(text, 'done');
      const firstCut = server.requests.findIndex((request) => request.truncated) + 1;
      assert.equal(firstCut, 4);
      const low = diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW');
      assert.equal(low[0]?.subject, `turn ${firstCut}`);
      assert.match(low[0]!.message, /may have truncated the prompt/);
      // Every turn's trace records what the server reported beside what we counted.
      assert.deepEqual(traces.documents.map((trace) => trace.turn), [1, 2, 3, 4]);
      traces.documents.forEach((trace, index) => assert.equal(trace.modelCall?.usage?.inputTokens, server.requests[index]!.keptTokens));
      const cut = traces.documents[firstCut - 1]!;
      assert.ok(cut.modelCall!.usage!.inputTokens! < cut.budget!.totalTokens / 2);
    } finally {
      await server.close();
    }
  });
}

test('AI SDK prepareStep, real HTTP: the previous step\'s usage.inputTokens raises the calibration before the next step assembles, stored with the session', async () => {
  const server = await startChatTestServer({ wire: 'openai', reply: readParts(2), countRatio: 1.3 });
  try {
    const sessionStore = createMemorySessionStore();
    const diagnostics: ContextDiagnostic[] = [];
    const strata = createStrataAiSdk({ budget: { inputCapTokens: 30_000 }, contextId: 'calibrated', sessionStore, onDiagnostic: (diagnostic) => diagnostics.push(diagnostic) });
    const model = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, includeUsage: true }).chatModel('qwen3:8b');
    const result = await generateText({ model, prompt: 'Read the whole log.', tools: { read_log: readLog([30, 30]), read_tool_output: strata.tools.read_tool_output }, prepareStep: strata.prepareStep, stopWhen: stepCountIs(5) });
    assert.equal(result.text, 'done');
    const calibrated = diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_USAGE_CALIBRATED');
    assert.equal(calibrated[0]?.subject, 'turn 1', "the first step's count was fed back with the second step");
    const ratio = (await sessionStore.load('calibrated'))?.state?.context?.inputTokenRatio ?? 0;
    assert.ok(ratio > 1.2, `the stored calibration is ${ratio}`);
  } finally {
    await server.close();
  }
});

/** A model that answers at once, reporting `inputTokens` for its call. */
function answering(inputTokens: number): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });
}

test("AI SDK prepareStep: the last step's usage reaches its trace through onFinish; without onFinish the trace is written without usage after PENDING_USAGE_CALLS later model calls", async () => {
  const traces = memoryTraces();
  const strata = createStrataAiSdk({ budget: { inputCapTokens: 4_000 }, traceSink: traces });
  await generateText({ model: answering(321), prompt: 'Answer once.', prepareStep: strata.prepareStep, onFinish: strata.onFinish });
  assert.deepEqual(traces.documents.map((trace) => trace.modelCall?.usage?.inputTokens), [321]);
  // No onFinish: the run's one trace waits for a usage report that never comes, until the bound writes it without one.
  await generateText({ model: answering(7), prompt: 'Never finished.', prepareStep: strata.prepareStep });
  assert.equal(traces.documents.length, 1);
  for (let run = 0; run < PENDING_USAGE_CALLS; run += 1) await generateText({ model: answering(9), prompt: `Run ${run}.`, prepareStep: strata.prepareStep });
  assert.equal(traces.documents.length, 2);
  assert.equal(traces.documents[1]!.modelCall?.usage, null);
});

test('strataPrepareStep (no onFinish to give): one trace per step, written as it is assembled', async () => {
  const traces = memoryTraces();
  const prepareStep = strataPrepareStep({ budget: { inputCapTokens: 4_000 }, traceSink: traces });
  await generateText({ model: answering(5), prompt: 'Answer once.', prepareStep });
  assert.equal(traces.documents.length, 1);
  assert.equal(traces.documents[0]!.modelCall, undefined);
});
