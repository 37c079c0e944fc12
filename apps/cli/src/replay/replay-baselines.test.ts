import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, ClearToolUsesEdit, HumanMessage, ToolMessage, type BaseMessage } from 'langchain';
import { toOpenAIChat, type CanonicalMessage } from '@strata/context';
import { loadProviderRules, loadTauBenchConversations } from '@strata/testing';
import { CLEARED_TOOL_RESULT, clearToolUsesRequests } from './replay-baselines.js';

const rules = await loadProviderRules();
const tauBench = loadTauBenchConversations();

/** A task, then `steps` tool steps of one call and a 1,000-character result each, then an answer. */
function toolRun(steps: number): CanonicalMessage[] {
  const history: CanonicalMessage[] = [{ role: 'user', content: 'Find the booking.' }];
  for (let step = 0; step < steps; step += 1) {
    history.push(
      { role: 'assistant', content: '', toolCalls: [{ id: `call_${step}`, name: 'search', input: { page: step } }] },
      { role: 'tool', toolCallId: `call_${step}`, toolName: 'search', content: `${step}`.padEnd(1_000, '.') },
    );
  }
  history.push({ role: 'assistant', content: 'Found it.' });
  return history;
}

const characters = (message: CanonicalMessage) => (message.role === 'assistant' ? (message.content ?? '').length : message.role === 'system' ? message.content.length : message.role === 'tool' ? message.content.length : 17);
const clearedIn = (messages: readonly CanonicalMessage[]) => messages.flatMap((message) => (message.role === 'tool' && message.content === CLEARED_TOOL_RESULT ? [message.toolCallId] : []));

test('clear_tool_uses: once the history passes the trigger, every result but the newest 3 is cleared, not only enough to get back under it', () => {
  // Requests: call k sees k results (k = 0..8). The trigger 4,500 is passed at 5 results (5,017 characters): clearing one
  // result would already bring it under, but the documented edit clears all but the newest 3.
  const turns = clearToolUsesRequests(toolRun(8), { triggerTokens: 4_500, countMessage: characters });
  assert.equal(turns.length, 9);
  assert.deepEqual(turns.map((turn) => clearedIn(turn.messages).length), [0, 0, 0, 0, 0, 2, 3, 4, 5]);
  assert.deepEqual(clearedIn(turns[5]!.messages), ['call_0', 'call_1']);
  assert.deepEqual(turns.map((turn) => turn.compacted), [false, false, false, false, false, true, true, true, true]);
  // The newest 3 stay whole, with their bodies.
  const last = turns.at(-1)!.messages.filter((message) => message.role === 'tool');
  assert.deepEqual(last.slice(-3).map((message) => message.role === 'tool' && message.content.length), [1_000, 1_000, 1_000]);
  // Decided on the whole history: the edited request of call 6 is far under the trigger, and call 7 clears again.
  assert.ok(turns[6]!.messages.reduce((sum, message) => sum + characters(message), 0) < 4_500);
  // A result cleared once is the same message in every later request (the same bytes for a prompt cache).
  const firstCleared = turns[5]!.messages.find((message) => message.role === 'tool' && message.content === CLEARED_TOOL_RESULT);
  assert.ok(turns.slice(6).every((turn) => turn.messages.includes(firstCleared!)));
  // Under the trigger nothing changes: the requests are the recording's messages themselves.
  const history = toolRun(8);
  const quiet = clearToolUsesRequests(history, { triggerTokens: 100_000, countMessage: characters });
  assert.ok(quiet.every((turn) => turn.messages.every((message, index) => message === history[index]) && !turn.compacted));
});

test('clear_tool_uses: keep sets how many of the newest results stay whole, and a cleared result keeps its call id and error flag only', () => {
  const history = toolRun(6).map((message) => (message.role === 'tool' ? { ...message, isError: true, masked: true, outputRef: { id: 'x', chars: 1_000, lines: 1, bytes: 1_000 } } : message));
  const last = clearToolUsesRequests(history, { triggerTokens: 10, keep: 1, countMessage: characters }).at(-1)!;
  assert.deepEqual(clearedIn(last.messages), ['call_0', 'call_1', 'call_2', 'call_3', 'call_4']);
  const cleared = last.messages.find((message) => message.role === 'tool')!;
  assert.deepEqual(cleared, { role: 'tool', toolCallId: 'call_0', toolName: 'search', content: CLEARED_TOOL_RESULT, isError: true });
  assert.deepEqual(clearToolUsesRequests(history, { triggerTokens: 10, keep: 0, countMessage: characters }).at(-1)!.messages.filter((message) => message.role === 'tool').map((message) => message.role === 'tool' && message.content), Array(6).fill(CLEARED_TOOL_RESULT));
});

/** The same run as LangChain messages, for the reference implementation. */
function asLangChain(history: readonly CanonicalMessage[]): BaseMessage[] {
  return history.map((message) => {
    if (message.role === 'tool') return new ToolMessage({ content: message.content, tool_call_id: message.toolCallId, name: message.toolName });
    if (message.role === 'assistant') return new AIMessage({ content: message.content ?? '', tool_calls: (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.input as Record<string, unknown>, type: 'tool_call' as const })) });
    return new HumanMessage(message.role === 'user' ? 'Find the booking.' : message.content);
  });
}

test("clear_tool_uses clears exactly the results LangChain's ClearToolUsesEdit clears, request by request", async () => {
  const history = toolRun(9);
  // Characters on both sides; LangChain's trigger is met at or over the value, Anthropic's past it: no count here equals it.
  const countLangChain = (messages: BaseMessage[]) => messages.reduce((sum, message) => sum + (typeof message.content === 'string' ? (message.getType() === 'human' ? 17 : message.content.length) : 0), 0);
  for (const [trigger, keep] of [[2_500, 3], [4_500, 3], [6_500, 2], [1, 0]] as const) {
    const ours = clearToolUsesRequests(history, { triggerTokens: trigger, keep, countMessage: characters });
    for (const turn of ours) {
      const request = asLangChain(history.slice(0, turn.trajectoryIndex));
      await new ClearToolUsesEdit({ trigger: { tokens: trigger }, keep: { messages: keep } }).apply({ messages: request, countTokens: countLangChain, model: undefined as never });
      const theirs = request.flatMap((message) => (ToolMessage.isInstance(message) && message.content === '[cleared]' ? [message.tool_call_id] : []));
      assert.deepEqual(clearedIn(turn.messages), theirs, `trigger ${trigger}, keep ${keep}, call ${turn.trajectoryIndex}`);
    }
  }
});

test('clear_tool_uses on real tau-bench runs: every request is one a provider accepts, and only tool bodies change', { skip: rules && tauBench ? false : '../shared is absent' }, () => {
  let clearedRequests = 0;
  for (const conversation of tauBench!.slice(0, 40)) {
    for (const turn of clearToolUsesRequests(conversation.messages, { triggerTokens: 1_500, countMessage: (message) => Math.ceil(JSON.stringify(message).length / 4) })) {
      const chat = toOpenAIChat(turn.messages);
      assert.deepEqual(rules!.violations(chat, 'openai'), [], `${conversation.index} call ${turn.trajectoryIndex}`);
      assert.deepEqual(rules!.violations(chat, 'anthropic'), [], `${conversation.index} call ${turn.trajectoryIndex}`);
      turn.messages.forEach((message, index) => {
        const original = conversation.messages[index]!;
        if (message !== original) assert.ok(message.role === 'tool' && original.role === 'tool' && message.toolCallId === original.toolCallId && message.content === CLEARED_TOOL_RESULT);
      });
      if (clearedIn(turn.messages).length > 0) clearedRequests += 1;
    }
  }
  assert.ok(clearedRequests > 0, 'no request passed the trigger: the test would not test clearing');
});
