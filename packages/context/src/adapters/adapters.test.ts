import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { CanonicalMessage } from '../messages.js';
import { historyArbitrary } from '@strata/testing';
import { loadTauBenchConversations } from '@strata/testing';
import { fromAiSdkMessages, toAiSdkMessages } from './ai-sdk-messages.js';
import { fromAnthropicMessages, toAnthropicMessages } from './anthropic-messages.js';
import { fromOpenAIChat, toOpenAIChat } from './openai-chat.js';

/** Provider formats carry no Strata-only flags (checkpoint, hidden): compare without them. */
const plain = (history: CanonicalMessage[]): CanonicalMessage[] =>
  history.map((message) => (message.role === 'user' ? { role: 'user', content: message.content } : message));

test('AI SDK messages and OpenAI chat round-trip canonical history exactly', () => {
  fc.assert(
    fc.property(historyArbitrary({ open: false, maxSteps: 15 }), (raw) => {
      const history = plain(raw);
      assert.deepEqual(fromAiSdkMessages(toAiSdkMessages(history)), history);
      assert.deepEqual(fromOpenAIChat(toOpenAIChat(history)), history);
    }),
  );
});

test('AI SDK: parallel results share one tool message; reasoning metadata travels as providerOptions', () => {
  const history: CanonicalMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', reasoning: [{ text: 'think', providerMetadata: { anthropic: { signature: 'sig' } } }], toolCalls: [{ id: 'a', name: 't', input: {} }, { id: 'b', name: 't', input: { x: 1 } }] },
    { role: 'tool', toolCallId: 'a', toolName: 't', content: 'A' },
    { role: 'tool', toolCallId: 'b', toolName: 't', content: 'failed', isError: true },
  ];
  const messages = toAiSdkMessages(history);
  assert.equal(messages.length, 3);
  assert.deepEqual(messages[2], {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: 'A' } },
      { type: 'tool-result', toolCallId: 'b', toolName: 't', output: { type: 'error-text', value: 'failed' } },
    ],
  });
  assert.deepEqual(fromAiSdkMessages(messages), history);
});

test('Anthropic: system moves out, turns alternate, thinking keeps its signature, results answer their calls', () => {
  fc.assert(
    fc.property(historyArbitrary({ open: false, maxSteps: 15 }), (raw) => {
      const history = plain(raw);
      const { system, messages } = toAnthropicMessages(history);
      assert.equal(system, 'You are a careful research agent.');
      messages.forEach((message, index) => {
        if (index > 0) assert.notEqual(message.role, messages[index - 1]!.role, 'roles alternate');
        const calls = new Set(index > 0 ? messages[index - 1]!.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])) : []);
        for (const block of message.content) if (block.type === 'tool_result') assert.ok(calls.has(block.tool_use_id));
      });
      const back = fromAnthropicMessages({ ...(system ? { system } : {}), messages });
      const calls = (list: CanonicalMessage[]) => list.flatMap((message) => (message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : message.role === 'tool' ? [`result:${message.toolCallId}:${message.content}`] : []));
      assert.deepEqual(calls(back), calls(history));
    }),
  );
  const signed: CanonicalMessage[] = [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', reasoning: [{ text: 'hmm', providerMetadata: { anthropic: { signature: 'sig-1' } } }, { text: 'unsigned' }] }];
  const { messages } = toAnthropicMessages(signed);
  assert.deepEqual(messages[1]!.content, [{ type: 'thinking', thinking: 'hmm', signature: 'sig-1' }, { type: 'text', text: 'a' }]);
});

test('real tau-bench runs convert to Anthropic messages whose tool results all answer the turn before', { skip: loadTauBenchConversations() ? false : '../shared is absent' }, () => {
  for (const run of loadTauBenchConversations()!) {
    const { messages } = toAnthropicMessages(run.messages);
    assert.equal(messages[0]!.role, 'user');
    messages.forEach((message, index) => {
      const calls = index > 0 ? messages[index - 1]!.content.filter((block) => block.type === 'tool_use').length : 0;
      const results = message.content.filter((block) => block.type === 'tool_result').length;
      assert.ok(results <= calls, `run ${run.index} message ${index}`);
    });
    assert.deepEqual(fromAiSdkMessages(toAiSdkMessages(run.messages)), run.messages);
  }
});
