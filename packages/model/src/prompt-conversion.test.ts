import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkCanonicalHistory, MAX_JSON_DEPTH, type AssistantMessage, type CanonicalMessage } from '@strata/context';
import { AssistantMessageBuilder } from './assistant-message-builder.js';
import { PART_METADATA_KEY, parseToolInput, toLanguageModelPrompt } from './prompt-conversion.js';

test('a full history converts to the V3 prompt, golden', () => {
  const assistant: AssistantMessage = {
    role: 'assistant',
    content: 'Looking.',
    reasoning: [{ text: 'plan', providerMetadata: { anthropic: { signature: 's1' } } }, { text: '', providerMetadata: { anthropic: { redactedData: 'r1' } } }],
    toolCalls: [{ id: 'c1', name: 'search', input: { q: 'x' } }],
    providerMetadata: { openai: { responseId: 'resp_1' }, [PART_METADATA_KEY]: { toolCalls: { c1: { google: { thoughtSignature: 't1' } } } } },
  };
  const prompt = toLanguageModelPrompt({
    system: 'Rules.',
    messages: [
      { role: 'user', content: 'Find x.', hidden: true, authority: 'data_only' },
      assistant,
      { role: 'tool', toolCallId: 'c1', toolName: 'search', content: 'found', outputRef: { id: 'ref-1', chars: 5, lines: 1, bytes: 5 } },
      { role: 'user', content: 'Thanks.' },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: 'Welcome.', toolCalls: [{ id: 'c2', name: 'search', input: '{"q": ' }, { id: 'c3', name: 'search', input: [1] }] },
    ],
  });
  assert.deepEqual(prompt, [
    { role: 'system', content: 'Rules.' },
    { role: 'user', content: [{ type: 'text', text: 'Find x.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'plan', providerOptions: { anthropic: { signature: 's1' } } },
        { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'r1' } } },
        { type: 'text', text: 'Looking.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: { q: 'x' }, providerOptions: { google: { thoughtSignature: 't1' } } },
      ],
      providerOptions: { openai: { responseId: 'resp_1' } },
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'search', output: { type: 'text', value: 'found' } }] },
    { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Welcome.' },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'search', input: {} },
        { type: 'tool-call', toolCallId: 'c3', toolName: 'search', input: {} },
      ],
    },
  ]);
});

test('tool inputs: JSON parses, empty means no arguments, anything else stays text', () => {
  assert.deepEqual(parseToolInput('{"a":[1,2]}'), { a: [1, 2] });
  assert.deepEqual(parseToolInput('  '), {});
  assert.equal(parseToolInput('{"a":'), '{"a":');
  assert.equal(parseToolInput('"plain"'), 'plain');
});

test('tool inputs past a canonical history\'s depth stay text, for the tool layer to refuse', () => {
  const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  assert.equal(typeof parseToolInput(nested(MAX_JSON_DEPTH)), 'object');
  assert.equal(parseToolInput(nested(MAX_JSON_DEPTH + 1)), nested(MAX_JSON_DEPTH + 1));
  assert.equal(parseToolInput(nested(600)), nested(600));
  // The message stays a history the next turn accepts.
  const builder = new AssistantMessageBuilder();
  builder.accept({ type: 'tool-call', toolCallId: 'c1', toolName: 'echo', input: nested(600) });
  assert.deepEqual(checkCanonicalHistory([builder.message()]), [{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', input: nested(600) }] }]);
});

test('an assistant message built from stream parts converts back to the parts it came from (property)', () => {
  const metadata = fc.option(fc.dictionary(fc.constantFrom('anthropic', 'openai', 'google'), fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.string()), { minKeys: 1, maxKeys: 2 }), { nil: undefined });
  const turn = fc.record({
    reasoning: fc.array(fc.record({ text: fc.string({ minLength: 1 }), providerMetadata: metadata }), { maxLength: 3 }),
    text: fc.string(),
    calls: fc.uniqueArray(fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), name: fc.constantFrom('a', 'b'), input: fc.dictionary(fc.string({ maxLength: 4 }), fc.integer()), providerMetadata: metadata }), { selector: (call) => call.id, maxLength: 4 }),
  });
  fc.assert(
    fc.property(turn, (generated) => {
      const builder = new AssistantMessageBuilder();
      generated.reasoning.forEach((part, index) => {
        builder.accept({ type: 'reasoning-start', id: `r${index}` });
        builder.accept({ type: 'reasoning-delta', id: `r${index}`, delta: part.text });
        builder.accept({ type: 'reasoning-end', id: `r${index}`, ...(part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata }) });
      });
      builder.accept({ type: 'text-delta', id: 't', delta: generated.text });
      for (const call of generated.calls) {
        builder.accept({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.input), ...(call.providerMetadata === undefined ? {} : { providerMetadata: call.providerMetadata }) });
      }
      const message: CanonicalMessage = JSON.parse(JSON.stringify(builder.message())) as CanonicalMessage;
      const [converted] = toLanguageModelPrompt({ messages: [message] });
      if (generated.reasoning.length === 0 && generated.text.length === 0 && generated.calls.length === 0) {
        assert.equal(converted, undefined, 'an empty assistant message is left out');
        return;
      }
      assert.ok(converted?.role === 'assistant');
      const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
      assert.deepEqual(converted.content, plain([
        ...generated.reasoning.map((part) => ({ type: 'reasoning', text: part.text, ...(part.providerMetadata === undefined ? {} : { providerOptions: part.providerMetadata }) })),
        ...(generated.text.length === 0 ? [] : [{ type: 'text', text: generated.text }]),
        ...generated.calls.map((call) => ({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input, ...(call.providerMetadata === undefined ? {} : { providerOptions: call.providerMetadata }) })),
      ]));
    }),
  );
});
