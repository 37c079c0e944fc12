// Whatever the canonical history, the assembled input is one a provider accepts.
// Checked with our own structural assertions, and with the independent oracle when ../shared is present.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProviderRules } from '@strata/testing';
import { toAnthropicMessages } from './adapters/anthropic-messages.js';
import { toOpenAIChat } from './adapters/openai-chat.js';
import { resolveContextBudget } from './context-configuration.js';
import { ContextContributorRegistry } from './contributor-registry.js';
import { createContextAssembler } from './default-pipeline.js';
import { ContextInputError } from './errors/context-input-error.js';
import type { AssistantMessage, CanonicalMessage, JsonValue, ToolCall, ToolResultMessage } from './messages.js';
import type { ModelInput } from './model-input.js';

const rules = await loadProviderRules();

function assemble(history: readonly CanonicalMessage[], registry = new ContextContributorRegistry()) {
  const assembler = createContextAssembler({ registry, budget: resolveContextBudget({ inputCapTokens: 8_000 }) });
  return assembler.assemble({ contextId: 'validity', turn: 1, history, tools: [] });
}

/** Our own reading of the rules: every call id non-empty and unique, answered right after its message, arguments objects, a user turn first. */
function assertProviderValid(input: ModelInput): void {
  const messages = input.messages.filter((message) => message.role !== 'system');
  assert.ok(messages.length > 0, 'a turn besides the system prompt');
  assert.equal(messages[0]!.role, 'user', 'the first turn is the user');
  const ids = new Set<string>();
  input.messages.forEach((message, index) => {
    if (message.role !== 'assistant' || !message.toolCalls?.length) return;
    const answers = [];
    for (let next = index + 1; next < input.messages.length && input.messages[next]!.role === 'tool'; next += 1) answers.push((input.messages[next] as ToolResultMessage).toolCallId);
    for (const call of message.toolCalls) {
      assert.ok(call.id !== '', 'a call id is never empty');
      assert.ok(!ids.has(call.id), `call id ${call.id} is unique in the request`);
      ids.add(call.id);
      assert.ok(answers.includes(call.id), `call ${call.id} is answered right after its message`);
      assert.ok(typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input), `call ${call.id} has object arguments`);
    }
  });
  if (rules) {
    assert.deepEqual(rules.violations(toOpenAIChat(input.messages), 'openai'), []);
    assert.deepEqual(rules.violations(toOpenAIChat(input.messages), 'anthropic'), []);
  }
  for (const message of toAnthropicMessages(input.messages).messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) if (block.type === 'tool_use') assert.equal(typeof block.input, 'object', 'Anthropic tool_use.input is an object');
  }
}

const ask: CanonicalMessage = { role: 'user', content: 'Look it up.' };
const call = (id: string, input: JsonValue = {}): ToolCall => ({ id, name: 'search', input });
const result = (id: string, content = 'found'): ToolResultMessage => ({ role: 'tool', toolCallId: id, toolName: 'search', content });

test('a history that ends with an unanswered call gets an "interrupted" result, with a diagnostic', async () => {
  const history: CanonicalMessage[] = [ask, { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] }, result('a')];
  const turn = await assemble(history);
  assertProviderValid(turn.input);
  const interrupted = turn.input.messages.find((message) => message.role === 'tool' && message.toolCallId === 'b') as ToolResultMessage;
  assert.equal(interrupted.isError, true);
  assert.ok(turn.trace.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_INTERRUPTED_TOOL_CALL'));
  assert.deepEqual(turn.history, history, 'the canonical history keeps what was really said');
});

test('a tool result that comes before its call: the result is an observation, the call is answered as interrupted', async () => {
  const turn = await assemble([ask, result('a'), { role: 'assistant', content: 'calling', toolCalls: [call('a')] }]);
  assertProviderValid(turn.input);
  assert.ok(turn.trace.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_ORPHAN_TOOL_RESULT'));
  assert.ok(turn.trace.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_INTERRUPTED_TOOL_CALL'));
});

test('arguments that are not a JSON object go out as an object holding the exact text, and stay exact in the history', async () => {
  for (const input of ['{"p":', '', 'x', 42, ['a'], null] as JsonValue[]) {
    const history: CanonicalMessage[] = [ask, { role: 'assistant', content: '', toolCalls: [call('a', input)] }, result('a', 'error: bad arguments')];
    const turn = await assemble(history);
    assertProviderValid(turn.input);
    const sent = turn.input.messages.find((message) => message.role === 'assistant') as AssistantMessage;
    const raw = typeof input === 'string' ? input : JSON.stringify(input);
    assert.deepEqual(sent.toolCalls![0]!.input, { invalid_arguments: raw });
    assert.ok(turn.trace.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_TOOL_ARGUMENTS_NOT_OBJECT'));
    assert.deepEqual((turn.history[1] as AssistantMessage).toolCalls![0]!.input, input, 'the history keeps the arguments as written');
  }
});

test('duplicate and empty call ids get stable unique ids in the request, each result still paired with its call', async () => {
  const history: CanonicalMessage[] = [
    ask,
    { role: 'assistant', content: '', toolCalls: [call('x'), call('x'), call('')] },
    result('x', 'first'),
    result('x', 'second'),
    result('', 'third'),
    { role: 'user', content: 'again' },
    { role: 'assistant', content: '', toolCalls: [call('x')] },
    result('x', 'fourth'),
  ];
  const first = await assemble(history);
  assertProviderValid(first.input);
  const pairs = new Map<string, string>();
  for (const message of first.input.messages) if (message.role === 'tool') pairs.set(message.toolCallId, message.content);
  assert.deepEqual([...pairs.values()], ['first', 'second', 'third', 'fourth'], 'every result still answers its own call');
  const again = await assemble(history);
  assert.equal(JSON.stringify(again.input), JSON.stringify(first.input), 'the ids are stable');
  assert.ok(first.trace.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_TOOL_CALL_ID_REPLACED'));
});

test('an empty history, or one of system messages only, is a clear input error before any provider call', async () => {
  for (const history of [[], [{ role: 'system', content: 'be brief' }]] as CanonicalMessage[][]) {
    await assert.rejects(assemble(history), (error: unknown) => ContextInputError.isInstance(error) && error.code === 'CONTEXT_HISTORY_EMPTY');
  }
});

test('a history whose first turn is the assistant gets a user turn before it', async () => {
  for (const history of [
    [{ role: 'assistant', content: 'Hello, how can I help?' }, { role: 'user', content: 'Find flights.' }],
    [{ role: 'assistant', content: '', toolCalls: [call('a')] }, result('a')],
    [{ role: 'system', content: 'be brief' }, { role: 'assistant', content: 'Only me.' }],
  ] as CanonicalMessage[][]) {
    const turn = await assemble(history);
    assertProviderValid(turn.input);
    assert.ok(turn.trace.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_USER_TURN_ADDED'));
  }
});

test('a stored-output pointer that cannot be read back is replaced by a note before the call', async () => {
  const ref = (id: string) => ({ id, chars: 5_000, lines: 100, bytes: 5_000 });
  const preview = (id: string): ToolResultMessage => ({
    role: 'tool',
    toolCallId: id,
    toolName: 'search',
    content: `[stored output ref="${id}": 5000 characters, 100 lines; only the head and tail are shown. Read more with read_tool_output using ref "${id}" and a query or a line range]\nhead\n[… 4990 characters omitted …]\ntail`,
    outputRef: ref(id),
    masked: true,
  });
  const stored = new Map([
    ['kept', { contextId: 'validity', body: 'x' }],
    ['elsewhere', { contextId: 'another-context', body: 'x' }],
  ]);
  let reads = 0;
  const outputStore = {
    put: () => Promise.reject(new Error('not used')),
    get: async (id: string) => {
      reads += 1;
      const entry = stored.get(id);
      return entry && { ref: ref(id), contextId: entry.contextId, toolCallId: id, toolName: 'search', body: entry.body, createdAt: '2026-01-01T00:00:00Z' };
    },
    close: async () => {},
  };
  const history: CanonicalMessage[] = [ask, { role: 'assistant', content: '', toolCalls: [call('kept'), call('gone'), call('elsewhere')] }, preview('kept'), preview('gone'), preview('elsewhere')];
  const assembler = createContextAssembler({ registry: new ContextContributorRegistry(), budget: resolveContextBudget({ inputCapTokens: 8_000 }), outputStore });
  const turn = await assembler.assemble({ contextId: 'validity', turn: 1, history, tools: [] });
  assertProviderValid(turn.input);
  const sent = new Map(turn.input.messages.filter((message): message is ToolResultMessage => message.role === 'tool').map((message) => [message.toolCallId, message]));
  assert.equal(sent.get('kept'), history[2], 'a readable pointer is sent as it is');
  for (const id of ['gone', 'elsewhere']) {
    assert.equal(sent.get(id)!.outputRef, undefined);
    assert.ok(!sent.get(id)!.content.includes('read_tool_output'), `${id}: the model is not told to read it`);
    assert.match(sent.get(id)!.content, /no longer stored[\s\S]*head[\s\S]*tail$/);
  }
  assert.deepEqual(turn.trace.diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_OUTPUT_REF_UNREADABLE').map((diagnostic) => diagnostic.subject), ['gone', 'elsewhere']);
  assert.deepEqual(turn.history, history, 'the canonical history is not touched');
  await assembler.assemble({ contextId: 'validity', turn: 2, history, tools: [] });
  assert.equal(reads, 5, 'a readable reference is checked once per context; unreadable ones again each turn');
});

test('a malformed history is one input error naming the message and field, never a crash', async () => {
  let deep: JsonValue = {};
  for (let level = 0; level < 100_000; level += 1) deep = { next: deep };
  const cases: Array<[unknown, RegExp]> = [
    [[ask, { role: 'user', content: 5 }], /history\[1\]\.content/],
    [[ask, { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'search', input: deep }] }], /history\[1\]\.toolCalls\[0\]\.input/],
    ['not a history', /history/],
  ];
  for (const [history, field] of cases) {
    await assert.rejects(assemble(history as CanonicalMessage[]), (error: unknown) => ContextInputError.isInstance(error) && field.test(error.culprit + ' ' + error.message));
  }
});
