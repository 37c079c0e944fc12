// The findings of issue 10, one test each: odd input gives one typed
// ContextInputError naming where and what was expected, never a TypeError,
// a RangeError or non-string content inside the canonical history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextInputError } from '../errors/context-input-error.js';
import { checkCanonicalHistory } from '../canonical-history-check.js';
import { ConservativeTokenEstimator } from '../conservative-token-estimator.js';
import { ExactTokenEstimator } from '../exact-token-estimator.js';
import type { CanonicalMessage, JsonValue } from '../messages.js';
import { fromAiSdkMessages, toAiSdkMessages } from './ai-sdk-messages.js';
import { fromAnthropicMessages, toAnthropicMessages } from './anthropic-messages.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';
import { fromShareGPT, fromSweAgentTrajectory, fromTauBenchRun } from './trajectories.js';

/** Asserts `run` throws one ContextInputError whose culprit is `culprit` and whose message contains `fragment`. */
function assertInputError(run: () => unknown, culprit: string, fragment: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(ContextInputError.isInstance(error), `expected a ContextInputError, got ${String(error)}`);
    assert.equal(error.culprit, culprit);
    assert.ok(error.message.includes(fragment), `"${error.message}" should contain "${fragment}"`);
    return true;
  });
}

/** Every string field of every message is a string: what the composer and the character counter rely on. */
function assertStringContent(history: readonly CanonicalMessage[]): void {
  for (const message of history) assert.equal(typeof message.content, 'string', JSON.stringify(message));
  checkCanonicalHistory(history);
}

test('fromOpenAIChat: a non-array, a non-object record and non-text content are input errors', () => {
  assertInputError(() => fromOpenAIChat({ role: 'user' } as never), 'messages', 'expected an array of messages, got object');
  assertInputError(() => fromOpenAIChat('hello' as never), 'messages', 'got string');
  assertInputError(() => fromOpenAIChat([{ role: 'user', content: 'a' }, 7]), 'messages[1]', 'expected a message object, got number');
  assertInputError(() => fromOpenAIChat([{ role: 'user', content: 3 }]), 'messages[0].content', 'expected a string, null or an array of content parts, got number');
  assertInputError(() => fromOpenAIChat([{ role: 'assistant', content: null, tool_calls: [{ id: 'a', function: { name: 't', arguments: 5 } }] }]), 'messages[0].tool_calls[0].function.arguments', 'expected a string');
});

test('fromAnthropicMessages: odd requests are input errors, not undefined.forEach or null.type', () => {
  assertInputError(() => fromAnthropicMessages(null as never), 'request', 'expected an object with a messages array, got null');
  assertInputError(() => fromAnthropicMessages({} as never), 'messages', 'expected an array of messages, got undefined');
  assertInputError(() => fromAnthropicMessages({ messages: [{ role: 'user', content: [null] }] } as never), 'messages[0].content[0]', 'expected a content block, got null');
  assertInputError(() => fromAnthropicMessages({ messages: [{ role: 'robot', content: 'x' }] } as never), 'messages[0].role', 'expected "user" or "assistant"');
});

test('fromAnthropicMessages: block-array tool results and block-array system prompts become string content', () => {
  const history = fromAnthropicMessages({
    system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Cite sources.' }],
    messages: [
      { role: 'user', content: 'look' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'shot', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'u1', content: [{ type: 'text', text: 'seen: ' }, { type: 'text', text: 'a cat' }] }] },
    ],
  } as never);
  assertStringContent(history);
  assert.deepEqual(history.slice(0, 2), [{ role: 'system', content: 'Be brief.' }, { role: 'system', content: 'Cite sources.' }]);
  assert.deepEqual(history.at(-1), { role: 'tool', toolCallId: 'u1', toolName: 'shot', content: 'seen: a cat' });
});

test('fromAiSdkMessages: odd input is an input error; real AI SDK 6 shapes are read, images and files kept', () => {
  assertInputError(() => fromAiSdkMessages(42 as never), 'messages', 'expected an array of messages, got number');
  assertInputError(() => fromAiSdkMessages([{ role: 'tool', content: 'x' }] as never), 'messages[0].content', 'expected an array of tool-result parts, got string');
  const history = fromAiSdkMessages([
    { role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', image: 'aGVsbG8=', mediaType: 'image/png' }, { type: 'file', data: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' }] },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 1 } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'json', value: { hit: true } } }] },
  ]);
  assertStringContent(history);
  assert.deepEqual(history[0], {
    role: 'user',
    content: 'what is this?',
    media: [{ type: 'image', mediaType: 'image/png', data: 'aGVsbG8=' }, { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/a.pdf', filename: 'a.pdf' }],
  });
  assert.equal(history[2]!.content, '{"hit":true}');
});

test('trajectory importers: null and odd records are input errors naming the field', () => {
  assertInputError(() => fromShareGPT(null as never), 'record', 'expected an object with a conversations array, got null');
  assertInputError(() => fromShareGPT({ conversations: [null] }), 'conversations[0]', 'expected a turn object, got null');
  assertInputError(() => fromShareGPT({ conversations: [{ from: 'human', value: 3 }] }), 'conversations[0].value', 'expected a string, got number');
  assertInputError(() => fromShareGPT({ conversations: [{ from: 'function_call', value: 'not json' }] }), 'conversations[0].value', 'expected a JSON object with a string name');
  assertInputError(() => fromTauBenchRun(undefined), 'run', 'expected an object with a traj array, got undefined');
  assertInputError(() => fromTauBenchRun({ traj: [{ role: 'user', content: {} }] }), 'traj[0].content', 'got object');
  assertInputError(() => fromSweAgentTrajectory([]), 'trajectory', 'expected an object with a history array, got array');
});

/** `{ a: { a: ... } }`, `depth` levels, built without recursion. */
function nested(depth: number): JsonValue {
  let value: JsonValue = {};
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

test('tool arguments nested 100,000 levels deep are an input error, not a stack overflow', () => {
  const deep = nested(100_000);
  const history: CanonicalMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 't', input: deep }] },
  ];
  assertInputError(() => checkCanonicalHistory(history), 'history[1].toolCalls[0].input', 'expected JSON nested at most 512 levels deep');
  assertInputError(() => new ConservativeTokenEstimator().countMessage(history[1]!), 'message.toolCalls[0].input', 'nested at most 512 levels deep');
  assertInputError(() => new ExactTokenEstimator({ family: 'o200k' }).countMessage(history[1]!), 'message.toolCalls[0].input', 'nested at most 512 levels deep');
  assertInputError(() => fromOpenAIChat([{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 't', arguments: '['.repeat(100_000) + ']'.repeat(100_000) } }] }]), 'messages[0].tool_calls[0].function.arguments', 'nested at most 512 levels deep');
  assertInputError(() => fromAiSdkMessages([{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 't', input: deep }] }]), 'messages[0].content[0].input', 'nested at most 512 levels deep');
});

test('exporters are total: a value that is not a canonical history is an input error, never a crash', () => {
  const deep: CanonicalMessage[] = [{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 't', input: nested(100_000) }] }];
  for (const exporter of [toOpenAIChat, toAnthropicMessages, toAiSdkMessages]) {
    assertInputError(() => exporter(deep), 'history[0].toolCalls[0].input', 'nested at most 512 levels deep');
    assertInputError(() => exporter([{ role: 'tool', toolCallId: 'c1', toolName: 't', content: ['x'] }] as never), 'history[0].content', 'expected a string, got array');
    assertInputError(() => exporter(null as never), 'history', 'expected an array of messages, got null');
  }
});

test('tool schemas nested too deep for JSON.stringify are an input error when counted', () => {
  let parameters: Record<string, unknown> = {};
  for (let level = 0; level < 100_000; level += 1) parameters = { items: parameters };
  assertInputError(() => new ConservativeTokenEstimator().countTool({ name: 'deep', parameters }), 'tool deep.parameters', 'nested at most 512 levels deep');
});
