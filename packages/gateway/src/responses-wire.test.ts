import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContextInputError, type CanonicalMessage } from '@strata/context';
import { loadSweAgentConversations, modelVisibleFields, withCallIdSuffix } from '@strata/testing';
import { fromResponsesInput, RESPONSES_WIRE, toResponsesItems } from './responses-wire.js';

/** What the Responses items carry of a message: its model-visible fields, less a tool result's error mark. */
const carried = (message: CanonicalMessage): CanonicalMessage => {
  const visible = modelVisibleFields(message);
  if (visible.role !== 'tool') return visible;
  const { isError: _isError, ...rest } = visible;
  return rest;
};

test('toResponsesItems then fromResponsesInput gives back every real SWE-agent conversation as the items carry it', (t) => {
  const conversations = loadSweAgentConversations();
  if (!conversations) return t.skip('../shared is absent');
  for (const { source, messages: recorded } of conversations) {
    // The recordings repeat a call id across steps, which the reader records once: each step's ids made unique first.
    let step = 0;
    const messages = recorded.map((message) => withCallIdSuffix(message, `-${message.role === 'assistant' ? (step += 1) : step}`));
    const items = messages.flatMap(toResponsesItems);
    assert.deepEqual(fromResponsesInput(items).map(carried), messages.map(carried), source);
  }
});

test('RESPONSES_WIRE.import keeps each message\'s own items as its origin while they line up, and the instructions as the opening', () => {
  const items = [
    { role: 'user', content: 'task' },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc' },
    { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'run', arguments: '{"a":1}' },
    { type: 'function_call_output', call_id: 'c1', output: 'out' },
  ];
  const imported = RESPONSES_WIRE.import({ instructions: 'be brief' }, items);
  assert.deepEqual(imported.map(({ message }) => message.role), ['system', 'user', 'assistant', 'tool']);
  assert.deepEqual(imported.slice(1).map(({ origin }) => origin?.items), [[items[0]], [items[1], items[2]], [items[3]]]);
  const body = RESPONSES_WIRE.upstreamBody({ instructions: 'be brief', stream: true, messages: items, temperature: 0 }, imported);
  assert.deepEqual(body, { instructions: 'be brief', temperature: 0, input: items }, 'the items as received, the stream flag the gateway\'s own');
  // A hosted call before the answer goes with the answer's step.
  const searched = [items[0]!, { type: 'web_search_call', id: 'ws_1', status: 'completed' }, { type: 'message', role: 'assistant', content: 'found' }];
  assert.deepEqual(RESPONSES_WIRE.import({}, searched).map(({ origin }) => origin?.items), [[searched[0]], [searched[1], searched[2]]]);
  // An output recorded away from its call is moved after it by the reader: then every message is converted anew.
  const apart = RESPONSES_WIRE.import({}, [items[1]!, items[2]!, { role: 'user', content: 'x' }, items[3]!]);
  assert.ok(apart.every(({ origin }) => origin === null));
});

test('RESPONSES_WIRE finds the gateway\'s read calls, adds a round as function_call_output items, and hides reads beside the client\'s own calls, which keep the reasoning', () => {
  const completion = { id: 'r', output: [
    { type: 'function_call', id: 'fc_1', call_id: 'read-1', name: 'read_tool_output', arguments: '{"ref":"x"}' },
    { type: 'function_call', id: 'fc_2', call_id: 'c2', name: 'run', arguments: 'not json' },
  ] };
  assert.deepEqual(RESPONSES_WIRE.calls(completion, 'read_tool_output'), { reads: [{ id: 'read-1', input: { ref: 'x' } }], total: 2 });
  assert.deepEqual(RESPONSES_WIRE.round(completion, [{ id: 'read-1', content: 'text' }]).at(-1), { type: 'function_call_output', call_id: 'read-1', output: 'text' });
  assert.deepEqual((RESPONSES_WIRE.withoutReads(completion, 'read_tool_output').output as Array<{ call_id: string }>).map((item) => item.call_id), ['c2']);
  // Beside a client call, the reads' own round holds the read calls alone; the reasoning stays with the client's call (never sent twice).
  const reasoned = { ...completion, output: [{ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc' }, ...completion.output] };
  assert.deepEqual((RESPONSES_WIRE.readsOnly!(reasoned, 'read_tool_output').output as Array<{ id: string }>).map((item) => item.id), ['fc_1']);
  assert.deepEqual((RESPONSES_WIRE.withoutReads(reasoned, 'read_tool_output').output as Array<{ id: string }>).map((item) => item.id), ['rs_1', 'fc_2']);
  assert.deepEqual(RESPONSES_WIRE.toolSchemas([{ type: 'function', name: 'run', parameters: { type: 'object' } }, { type: 'web_search' }, null]), [{ name: 'run', description: undefined, parameters: { type: 'object' } }]);
});

test('fromResponsesInput refuses anything malformed with a ContextInputError naming input[i] and its field', () => {
  for (const [input, culprit] of [
    [[null], 'input[0]'],
    [[{ type: 'item_reference', id: 'x' }], 'input[0]'],
    [[{ role: 'user', content: 'a' }, { type: 'web_search_call', id: 'ws' }, { type: 'function_call', name: 'f', arguments: '{}' }], 'input[2].call_id'],
    [[{ role: 'user', content: 'a' }, { type: 'message', role: 'robot', content: 'b' }], 'input[1].role'],
    [[{ type: 'function_call', name: 'f', arguments: '{}' }], 'input[0].call_id'],
    [[{ type: 7 }], 'input[0].type'],
    [[{ id: 'no-type' }], 'input[0].type'],
  ] as const) {
    assert.throws(() => fromResponsesInput(input as unknown as unknown[]), (error: unknown) => ContextInputError.isInstance(error) && error.culprit === culprit && error.message.startsWith(culprit), JSON.stringify(input));
  }
});
