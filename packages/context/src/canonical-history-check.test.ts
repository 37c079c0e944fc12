import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH, checkCanonicalHistory, checkJsonValue } from './canonical-history-check.js';
import { ContextInputError } from './errors/context-input-error.js';
import type { CanonicalMessage } from './messages.js';

function culpritOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(ContextInputError.isInstance(error), String(error));
    return `${error.culprit} | ${error.message}`;
  }
  assert.fail('expected a ContextInputError');
}

const valid: CanonicalMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'look', media: [{ type: 'image', mediaType: 'image/png', data: 'aGk=' }], hidden: true, authority: 'data_only', checkpoint: false },
  { role: 'assistant', content: '', reasoning: [{ text: 'r', providerMetadata: { anthropic: { signature: 's' } } }], toolCalls: [{ id: 'a', name: 't', input: { deep: [1, 'x', null, true] } }], providerMetadata: { openai: { id: 'x' } } },
  { role: 'tool', toolCallId: 'a', toolName: 't', content: 'ok', isError: false, masked: true, outputRef: { id: 'o', chars: 2, lines: 1, bytes: 2 }, media: [{ type: 'file', mediaType: 'application/pdf', url: 'https://x/y.pdf', filename: 'y.pdf' }] },
];

test('a valid history passes and comes back as the same array, uncopied', () => {
  assert.equal(checkCanonicalHistory(valid), valid);
  // What the composer repairs passes: empty and repeated call ids, string arguments, results out of place.
  const repairable: CanonicalMessage[] = [
    { role: 'tool', toolCallId: '', toolName: 't', content: 'early' },
    { role: 'assistant', content: '', toolCalls: [{ id: '', name: 't', input: 'not json' }, { id: 'a', name: 't', input: {} }, { id: 'a', name: 't', input: [1] }] },
  ];
  assert.equal(checkCanonicalHistory(repairable), repairable);
  assert.equal(checkCanonicalHistory([]).length, 0);
});

test('each wrong field is named history[i].field with what was expected', () => {
  const cases: Array<[unknown, string]> = [
    [{}, 'history | history: expected an array of messages, got object'],
    [[null], 'history[0] | history[0]: expected a message object, got null'],
    [[{ role: 'robot', content: '' }], 'history[0].role | history[0].role: expected "system", "user", "assistant" or "tool", got string'],
    [[{ role: 'user', content: ['a'] }], 'history[0].content | history[0].content: expected a string, got array'],
    [[{ role: 'user', content: 'a', media: [{ type: 'image', mediaType: 'image/png' }] }], 'history[0].media[0] | history[0].media[0]: expected exactly one of data and url'],
    [[{ role: 'user', content: 'a', media: [{ type: 'video', mediaType: 'video/mp4', url: 'u' }] }], 'history[0].media[0].type | history[0].media[0].type: expected "image" or "file", got string'],
    [[{ role: 'assistant', content: '', toolCalls: [{ id: 3, name: 't', input: {} }] }], 'history[0].toolCalls[0].id | history[0].toolCalls[0].id: expected a string, got number'],
    [[{ role: 'assistant', content: '', toolCalls: [{ id: 'a', name: '', input: {} }] }], 'history[0].toolCalls[0].name | history[0].toolCalls[0].name: expected a non-empty string, got ""'],
    [[{ role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 't', input: { x: [1, Number.NaN] } }] }], 'history[0].toolCalls[0].input | history[0].toolCalls[0].input: expected JSON (finite numbers), got NaN at .x[1]'],
    [[{ role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 't', input: { when: new Date(0) } }] }], 'history[0].toolCalls[0].input | history[0].toolCalls[0].input: expected JSON, got an instance of Date at .when'],
    [[{ role: 'tool', toolCallId: 'a', toolName: 't', content: 'x', outputRef: { id: 'o', chars: -1, lines: 0, bytes: 0 } }], 'history[0].outputRef.chars | history[0].outputRef.chars: expected a non-negative integer, got number'],
    [[{ role: 'tool', toolCallId: 'a', toolName: 't', content: 'x', isError: 'yes' }], 'history[0].isError | history[0].isError: expected a boolean, got string'],
  ];
  for (const [history, expected] of cases) assert.equal(culpritOf(() => checkCanonicalHistory(history)), expected);
});

test('JSON depth is bounded without recursion; a cycle is an error, not a hang', () => {
  let atLimit: unknown = 1;
  for (let level = 0; level < MAX_JSON_DEPTH; level += 1) atLimit = [atLimit];
  checkJsonValue(atLimit, 'v');
  assert.match(culpritOf(() => checkJsonValue([atLimit], 'v')), /^v \| v: expected JSON nested at most 512 levels deep/);
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  cyclic.again = cyclic;
  assert.match(culpritOf(() => checkJsonValue(cyclic, 'v')), /cyclic|nodes/);
});

test('memoised per message object: a message that passed is not walked again', () => {
  const message = { role: 'tool', toolCallId: 'a', toolName: 't', content: 'x' } as { content: unknown };
  checkCanonicalHistory([message]);
  message.content = 42; // breaks the immutability contract on purpose: the memo does not look again
  checkCanonicalHistory([message]);
  assert.match(culpritOf(() => checkCanonicalHistory([{ ...message }])), /history\[0\]\.content/);
});

test('linear: 100,000 messages check well within the bound (times printed)', () => {
  const history: CanonicalMessage[] = [];
  for (let index = 0; index < 50_000; index += 1) {
    history.push({ role: 'assistant', content: `step ${index}`, toolCalls: [{ id: `c${index}`, name: 'search', input: { query: `q${index}`, filters: { year: [2020, 2025] } } }] });
    history.push({ role: 'tool', toolCallId: `c${index}`, toolName: 'search', content: 'result '.repeat(20) });
  }
  const first = performance.now();
  checkCanonicalHistory(history);
  const firstMs = performance.now() - first;
  const second = performance.now();
  checkCanonicalHistory(history);
  const secondMs = performance.now() - second;
  console.log(`# checkCanonicalHistory on 100,000 messages: first ${firstMs.toFixed(1)} ms, memoised ${secondMs.toFixed(1)} ms`);
  // A bound loose enough for a loaded 2-core machine; a quadratic check would take minutes.
  assert.ok(firstMs < 10_000, `first check took ${firstMs} ms`);
});
