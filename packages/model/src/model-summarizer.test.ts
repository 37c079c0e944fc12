import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createModelClient } from './create-model-client.js';
import { ContextOverflowError } from './errors/context-overflow-error.js';
import { createModelSummarizer, renderTranscript } from './model-summarizer.js';
import { ScriptedLanguageModel } from './scripted-language-model.js';
import { anthropicOverflowError } from './scripted-provider-errors.js';

const TRANSCRIPT = [
  { role: 'user', content: 'Book a flight.' },
  { role: 'assistant', content: '', reasoning: [{ text: 'private' }], toolCalls: [{ id: 'c1', name: 'search', input: { to: 'LIM' } }] },
  { role: 'tool', toolCallId: 'c1', toolName: 'search', content: 'no seats', isError: true },
  { role: 'assistant', content: 'None left.' },
] as const;

test('the transcript renders as plain text, golden', () => {
  assert.equal(
    renderTranscript(TRANSCRIPT),
    '[user]\nBook a flight.\n\n[assistant]\n(tool call search id=c1 input={"to":"LIM"})\n\n[tool result search id=c1 error]\nno seats\n\n[assistant]\nNone left.',
  );
});

test('summarize sends instructions as system, the transcript as one user message, no tools', async () => {
  const model = new ScriptedLanguageModel([{ parts: [{ type: 'text', text: 'User wants LIM; none left.' }] }]);
  const summarizer = createModelSummarizer({ client: createModelClient({ model }), maxOutputTokens: 500 });
  const summary = await summarizer.summarize({ transcript: TRANSCRIPT, instructions: 'Summarize.', signal: new AbortController().signal });
  assert.equal(summary, 'User wants LIM; none left.');
  const [call] = model.calls;
  assert.deepEqual(call?.prompt, [
    { role: 'system', content: 'Summarize.' },
    { role: 'user', content: [{ type: 'text', text: renderTranscript(TRANSCRIPT) }] },
  ]);
  assert.equal(call?.tools, undefined);
  assert.equal(call?.maxOutputTokens, 500);
});

test('an overflow while summarizing is thrown as ContextOverflowError', async () => {
  const model = new ScriptedLanguageModel([{ throws: anthropicOverflowError() }]);
  const summarizer = createModelSummarizer({ client: createModelClient({ model }) });
  await assert.rejects(summarizer.summarize({ transcript: TRANSCRIPT, instructions: 'Summarize.', signal: new AbortController().signal }), (error: unknown) => ContextOverflowError.isInstance(error));
});
