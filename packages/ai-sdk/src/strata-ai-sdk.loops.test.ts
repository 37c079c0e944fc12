import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asSchema, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, ToolLoopAgent } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

/** One part of a language model's stream, as the mock returns them. */
type StreamPart = Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;
import { ConservativeTokenEstimator, fromAiSdkMessages, type TraceSink } from '@strata/context';
import { createStrataAiSdk } from './strata-ai-sdk.js';

const STEPS = 10;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

function logPart(part: number): string {
  return Array.from({ length: 120 }, (_, line) => `part ${part} line ${line}: ${line % 40 === 0 ? 'ERROR' : 'ok'}`).join('\n');
}

const readLog = tool({
  description: 'Reads part of the log.',
  inputSchema: jsonSchema<{ part: number }>({ type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] }),
  execute: async ({ part }) => logPart(part),
});

function traceCounter(): TraceSink & { turns: number[] } {
  const turns: number[] = [];
  return { turns, async write(document) { turns.push(document.turn); } };
}

/** Tool-call ids in a prompt's assistant messages and tool results: every call answered, every result called. */
function pairedCalls(prompt: MockLanguageModelV3['doGenerateCalls'][number]['prompt']): boolean {
  const calls = prompt.flatMap((message) => (message.role === 'assistant' ? message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])) : []));
  const results = prompt.flatMap((message) => (message.role === 'tool' ? message.content.flatMap((part) => (part.type === 'tool-result' ? [part.toolCallId] : [])) : []));
  return JSON.stringify(calls) === JSON.stringify(results);
}

function masked(prompt: MockLanguageModelV3['doGenerateCalls'][number]['prompt']): number {
  return prompt.filter((message) => message.role === 'tool' && message.content.some((part) => part.type === 'tool-result' && part.output.type === 'text' && part.output.value.startsWith('[stored output'))).length;
}

/** A model that calls `read_log` for parts 1 to STEPS, one per step, then answers "done". */
function readLogModel(): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      step += 1;
      if (step > STEPS) return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      return { content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: 'read_log', input: JSON.stringify({ part: step }) }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
    },
  });
}

test('ToolLoopAgent: prepareStep windows every step of the agent', async () => {
  const model = readLogModel();
  const traceSink = traceCounter();
  const strata = createStrataAiSdk({ budget: { inputCapTokens: 4_000 }, traceSink, tools: { read_log: readLog } });
  const agent = new ToolLoopAgent({ model, tools: { read_log: readLog, ...strata.tools }, stopWhen: stepCountIs(STEPS + 2), prepareStep: strata.prepareStep, onFinish: strata.onFinish });
  const result = await agent.generate({ prompt: 'Read every part of the log.' });
  assert.equal(result.text, 'done');
  assert.equal(model.doGenerateCalls.length, STEPS + 1);
  assert.deepEqual(traceSink.turns, model.doGenerateCalls.map((_, index) => index + 1));
  assert.ok(model.doGenerateCalls.every((call) => pairedCalls(call.prompt)));
  assert.ok(masked(model.doGenerateCalls.at(-1)!.prompt) > 0, 'old results are previews by the last step');
});

test('streamText: prepareStep windows every streamed step', async () => {
  let step = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => {
      step += 1;
      const finish = { type: 'finish' as const, usage };
      const chunks: StreamPart[] =
        step > STEPS
          ? [{ type: 'text-start' as const, id: 't' }, { type: 'text-delta' as const, id: 't', delta: 'done' }, { type: 'text-end' as const, id: 't' }, { ...finish, finishReason: { unified: 'stop' as const, raw: 'stop' } }]
          : [{ type: 'tool-call' as const, toolCallId: `call-${step}`, toolName: 'read_log', input: JSON.stringify({ part: step }) }, { ...finish, finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' } }];
      return { stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
  const traceSink = traceCounter();
  const strata = createStrataAiSdk({ budget: { inputCapTokens: 4_000 }, traceSink, tools: { read_log: readLog } });
  const result = streamText({ model, tools: { read_log: readLog, ...strata.tools }, stopWhen: stepCountIs(STEPS + 2), prepareStep: strata.prepareStep, onFinish: strata.onFinish, prompt: 'Read every part of the log.' });
  assert.equal(await result.text, 'done');
  assert.equal(model.doStreamCalls.length, STEPS + 1);
  assert.deepEqual(traceSink.turns, model.doStreamCalls.map((_, index) => index + 1));
  assert.ok(model.doStreamCalls.every((call) => pairedCalls(call.prompt)));
  assert.ok(masked(model.doStreamCalls.at(-1)!.prompt) > 0, 'old results are previews by the last step');
});

test('prepareStep charges the system prompt it is given, so system and messages stay under the cap together', async () => {
  const system = `You read logs. ${'Follow the house rules for reading logs. '.repeat(120)}`;
  const estimator = new ConservativeTokenEstimator({ family: 'unknown' });
  const largest = async (charged: boolean): Promise<number> => {
    const model = readLogModel();
    const strata = createStrataAiSdk({ budget: { inputCapTokens: 6_000 }, tools: { read_log: readLog }, system: charged ? system : undefined });
    await new ToolLoopAgent({ model, instructions: system, tools: { read_log: readLog, ...strata.tools }, stopWhen: stepCountIs(STEPS + 2), prepareStep: strata.prepareStep }).generate({ prompt: 'Read every part of the log.' });
    // The system prompt reaches the model once, as the SDK sends it (Strata's run contract, the goal snapshot, is a system message of its own).
    assert.ok(model.doGenerateCalls.every((call) => call.prompt.filter((message) => message.role === 'system' && message.content === system).length === 1));
    return Math.max(...model.doGenerateCalls.map((call) => fromAiSdkMessages(call.prompt).reduce((total, message) => total + estimator.countMessage(message), 0)));
  };
  const strata = createStrataAiSdk({ budget: { inputCapTokens: 6_000 } });
  const readToolOutputSchema = { name: 'read_tool_output', description: strata.tools.read_tool_output.description, parameters: jsonSchemaOf(strata) };
  const tools = estimator.countTool({ name: 'read_log', description: 'Reads part of the log.', parameters: { type: 'object', properties: { part: { type: 'integer' } }, required: ['part'] } }) + estimator.countTool(readToolOutputSchema);
  assert.ok((await largest(true)) + tools <= 6_000, 'charged: within the cap');
  assert.ok((await largest(false)) + tools > 6_000, 'not charged: the system prompt pushes requests over');
});

function jsonSchemaOf(strata: ReturnType<typeof createStrataAiSdk>): Record<string, unknown> {
  return asSchema(strata.tools.read_tool_output.inputSchema).jsonSchema as Record<string, unknown>;
}
