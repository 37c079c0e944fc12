import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { createModelClient } from './create-model-client.js';
import { ProviderError } from './errors/provider-error.js';
import { generate } from './generate.js';
import { ScriptedLanguageModel, scriptedStreamParts } from './scripted-language-model.js';

const CALL: LanguageModelV3CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };

async function read(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV3StreamPart>) parts.push(part);
  return parts;
}

test('replays the parts a provider would send, golden', () => {
  assert.deepEqual(
    scriptedStreamParts({
      parts: [
        { type: 'reasoning', text: 'Think it.', providerMetadata: { anthropic: { signature: 'sig' } } },
        { type: 'text', text: 'Hi you' },
        { type: 'tool-call', id: 'c1', name: 'look', input: { at: 1 } },
      ],
      usage: { inputTokens: 10, outputTokens: 4, cachedInputTokens: 6 },
    }),
    [
      { type: 'stream-start', warnings: [] },
      { type: 'reasoning-start', id: 'reasoning-0' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: 'Think ' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: 'it.' },
      { type: 'reasoning-end', id: 'reasoning-0', providerMetadata: { anthropic: { signature: 'sig' } } },
      { type: 'text-start', id: 'text-1' },
      { type: 'text-delta', id: 'text-1', delta: 'Hi ' },
      { type: 'text-delta', id: 'text-1', delta: 'you' },
      { type: 'text-end', id: 'text-1' },
      { type: 'tool-input-start', id: 'c1', toolName: 'look' },
      { type: 'tool-input-delta', id: 'c1', delta: '{"at":1}' },
      { type: 'tool-input-end', id: 'c1' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'look', input: '{"at":1}' },
      {
        type: 'finish',
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage: { inputTokens: { total: 10, noCache: 4, cacheRead: 6, cacheWrite: undefined }, outputTokens: { total: 4, text: 4, reasoning: undefined } },
      },
    ],
  );
});

test('records the exact call options of each call, in order', async () => {
  const model = new ScriptedLanguageModel([{ parts: [{ type: 'text', text: 'one' }] }, { parts: [{ type: 'text', text: 'two' }] }]);
  const first = await model.doStream(CALL);
  await read(first.stream);
  const second: LanguageModelV3CallOptions = { ...CALL, maxOutputTokens: 10 };
  await model.doGenerate(second);
  assert.equal(model.calls[0], CALL);
  assert.equal(model.calls[1], second);
  assert.equal(model.callCount, 2);
});

test('doGenerate returns the same turn as content', async () => {
  const model = new ScriptedLanguageModel([{ parts: [{ type: 'text', text: 'a b' }, { type: 'tool-call', id: 'x', name: 'n', rawInput: '{' }], finishReason: 'stop', rawFinishReason: 'end_turn' }]);
  const result = await model.doGenerate(CALL);
  assert.deepEqual(result.content, [
    { type: 'text', text: 'a b' },
    { type: 'tool-call', toolCallId: 'x', toolName: 'n', input: '{' },
  ]);
  assert.deepEqual(result.finishReason, { unified: 'stop', raw: 'end_turn' });
});

test('a call past the end of the script fails naming the call, and the adapter reports it as a ProviderError', async () => {
  const model = new ScriptedLanguageModel([{ parts: [{ type: 'text', text: 'only' }] }]);
  const client = createModelClient({ model, retry: { maxAttempts: 1 } });
  await generate(client, { messages: [{ role: 'user', content: 'a' }] });
  await assert.rejects(generate(client, { messages: [{ role: 'user', content: 'b' }] }), (error: unknown) => {
    assert.ok(ProviderError.isInstance(error));
    assert.match(error.message, /call 2 has no scripted turn \(the script has 1\)/);
    return true;
  });
});

test('produces parts only when read; an abort between parts errors the stream with the reason', async () => {
  const controller = new AbortController();
  const model = new ScriptedLanguageModel([{ parts: [{ type: 'text', text: 'one two three' }] }]);
  const { stream } = await model.doStream({ ...CALL, abortSignal: controller.signal });
  const reader = stream.getReader();
  assert.deepEqual((await reader.read()).value, { type: 'stream-start', warnings: [] });
  assert.deepEqual((await reader.read()).value, { type: 'text-start', id: 'text-0' });
  controller.abort(new Error('stop now'));
  await assert.rejects(reader.read(), /stop now/);
  await assert.rejects(model.doStream({ ...CALL, abortSignal: controller.signal }), /stop now/);
});
