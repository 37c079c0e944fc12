import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { historyArbitrary, loadProviderRules, runSignedSession, stepsOf, type SignedSessionTurn } from '@strata/testing';
import { toAiSdkMessages } from './adapters/ai-sdk-messages.js';
import { toAnthropicMessages } from './adapters/anthropic-messages.js';
import { DefaultContextValidator } from './context-validator.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { DefaultHistoryCompactor } from './default-history-compactor.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
import { DefaultContextMessageComposer } from './message-composer.js';
import type { AssistantMessage, CanonicalMessage, JsonValue, ToolResultMessage } from './messages.js';
import { isSignedAssistant, isVerbatimSigned, latestSignedIndex } from './signed-reasoning.js';

const rules = await loadProviderRules();
const estimator = new ConservativeTokenEstimator({ family: 'unknown' });

const thinking = (signature: string) => ({ text: `Plan for ${signature}.`, providerMetadata: { anthropic: { signature } } });
const signedStep = (id: string, options: { input?: JsonValue } = {}): AssistantMessage => ({
  role: 'assistant',
  content: '',
  reasoning: [thinking(`sig-${id}`)],
  toolCalls: [{ id, name: 'search', input: options.input ?? { query: id } }],
});
const result = (id: string, content = `found ${id}`): ToolResultMessage => ({ role: 'tool', toolCallId: id, toolName: 'search', content });

test('signed means a signing field of a known provider: Anthropic signatures and redacted data, OpenAI Responses reasoning items, Gemini thought signatures', () => {
  const assistant = (message: Partial<AssistantMessage>): AssistantMessage => ({ role: 'assistant', content: 'x', ...message });
  assert.ok(isSignedAssistant(assistant({ reasoning: [thinking('s')] })));
  assert.ok(isSignedAssistant(assistant({ reasoning: [{ text: '', providerMetadata: { anthropic: { redactedData: 'r' } } }] })));
  assert.ok(isSignedAssistant(assistant({ reasoning: [{ text: 'sum', providerMetadata: { openai: { itemId: 'rs_1' } } }] })));
  assert.ok(isSignedAssistant(assistant({ reasoning: [{ text: '', providerMetadata: { openai: { reasoningEncryptedContent: 'enc' } } }] })));
  assert.ok(isSignedAssistant(assistant({ toolCalls: [{ id: 'c', name: 't', input: {}, providerMetadata: { google: { thoughtSignature: 'g' } } }] })));
  assert.ok(!isSignedAssistant(assistant({ reasoning: [{ text: 'local model thoughts' }] })), 'reasoning without a signature is not signed');
  assert.ok(!isSignedAssistant(assistant({ reasoning: [{ text: 't', providerMetadata: { anthropic: { signature: '' } } }] })), 'an empty signature signs nothing');
  assert.ok(!isSignedAssistant(assistant({ reasoning: [{ text: 't', providerMetadata: { other: { signature: 's' } } }] })), 'an unknown provider key signs nothing');
  assert.ok(!isSignedAssistant({ role: 'user', content: 'x' }));
  assert.ok(!isVerbatimSigned(signedStep('a', { input: 'not json' })), 'arguments that are not an object cannot go verbatim');
  assert.ok(!isVerbatimSigned({ role: 'assistant', content: ' ', reasoning: [thinking('s')] }), 'nor a message with neither text nor calls');
  assert.equal(latestSignedIndex([{ role: 'user', content: 'q' }, signedStep('a'), result('a'), signedStep('b', { input: 3 }), result('b')]), 1);
});

test('the composer never edits a signed step: a call id used before, or arguments that are not an object, leave the step out whole with a diagnostic', () => {
  const earlier: AssistantMessage = { role: 'assistant', content: 'first', toolCalls: [{ id: 'x', name: 'search', input: {} }] };
  const history: CanonicalMessage[] = [{ role: 'user', content: 'Go.' }, earlier, result('x'), signedStep('x'), result('x', 'second'), signedStep('y', { input: 'oops' }), result('y'), { role: 'user', content: 'And now?' }];
  const composed = new DefaultContextMessageComposer({ maskStoredResults: false }).compose({ history, messages: [], attachments: [] });
  assert.deepEqual(composed.history, [history[0], earlier, history[2], history[7]], 'both signed steps are left out with their results; nothing is renamed or wrapped');
  const dropped = composed.diagnostics.filter((diagnostic) => diagnostic.code === 'CONTEXT_SIGNED_STEP_DROPPED');
  assert.deepEqual(dropped.map((diagnostic) => diagnostic.subject), ['history[3]', 'history[5]']);
  assert.match(dropped[0]!.message, /already used in this request/);
  assert.match(dropped[1]!.message, /not a JSON object/);

  // The same steps unsigned are repaired in the outgoing copy, as before.
  const unsigned = history.map((message) => (message.role === 'assistant' ? { ...message, reasoning: undefined } : message));
  const repaired = new DefaultContextMessageComposer({ maskStoredResults: false }).compose({ history: unsigned, messages: [], attachments: [] });
  assert.equal(repaired.history.length, history.length);
  assert.ok(repaired.diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_TOOL_CALL_ID_REPLACED'));
});

test('the validator fails a turn that sends an edited copy of a signed message (signed-unchanged)', () => {
  const signed = signedStep('a');
  const copy: AssistantMessage = { ...signed, toolCalls: [{ id: 'strata_1_0', name: 'search', input: { query: 'a' } }] };
  const canonical = new Set<CanonicalMessage>([signed]);
  const validate = (assistant: AssistantMessage) =>
    new DefaultContextValidator().validate({
      input: { messages: [{ role: 'user', content: 'Go.' }, assistant, result(assistant.toolCalls![0]!.id)], tools: [] },
      protectedSectionIds: [],
      governedTools: [],
      historyMessages: { has: () => true },
      canonicalMessages: canonical,
    });
  assert.deepEqual(validate(signed), []);
  assert.deepEqual(validate(copy).map((violation) => violation.rule), ['signed-unchanged']);
});

test('a summary removes older signed steps whole and keeps the latest one as it was, even before the recent suffix', async () => {
  const body = (id: string) => `result of ${id}\n` + 'a line of tool output 0123456789\n'.repeat(40);
  const history: CanonicalMessage[] = [{ role: 'user', content: 'Investigate.' }];
  for (let step = 1; step <= 8; step += 1) history.push(signedStep(`c${step}`), result(`c${step}`, body(`c${step}`)));
  // Later turns without signed reasoning (another model took over): the latest signed step is now old.
  for (let step = 9; step <= 14; step += 1) history.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${step}`, name: 'search', input: {} }] }, result(`c${step}`, body(`c${step}`)));
  const summarizer = { summarize: async () => '## Completed work\n- searched\n\n## Next step\n- go on' };
  const compacted = await new DefaultHistoryCompactor({ summarizer, recentShare: 0.1 }).compact({
    contextId: 'c',
    history,
    reason: 'token-pressure',
    targetHistoryTokens: 2_000,
    limitHistoryTokens: 4_000,
    estimator,
    signal: new AbortController().signal,
  });
  assert.ok(compacted.trace.summarizedMessages > 0, 'a summary was made');
  const kept = compacted.history.filter((message) => message.role === 'assistant');
  for (const message of kept) assert.ok(history.includes(message), 'every assistant message is an original object: none edited');
  assert.ok(compacted.history.includes(history[15]!), 'the latest signed step (c8) stays');
  assert.ok(compacted.history.includes(history[16]!), 'with its result');
  assert.ok(!compacted.history.includes(history[1]!), 'an older signed step went into the summary');
});

test('the window keeps the latest signed step beside what it must keep, with a user turn before it, whenever it fits', () => {
  const task: CanonicalMessage = { role: 'user', content: 'Start here.' };
  const signed = signedStep('s');
  const long = (text: string) => `${text} ` + 'more words for this message '.repeat(30);
  const history = (step: AssistantMessage): CanonicalMessage[] => [task, { role: 'assistant', content: long('noted') }, step, result('s', long('found')), { role: 'user', content: 'Now the next request.' }, { role: 'assistant', content: 'On it.' }];
  const count = (message: CanonicalMessage) => estimator.countMessage(message);
  const budget = [task, signed, result('s', long('found')), { role: 'user', content: 'Now the next request.' } as CanonicalMessage, { role: 'assistant', content: 'On it.' } as CanonicalMessage].reduce((sum, message) => sum + count(message), 0) + 5;
  const select = (step: AssistantMessage) => new AtomicHistoryWindowPolicy().select({ messages: history(step), budgetTokens: budget, count, headroomTokens: Math.floor(budget / 2) });
  const windowed = select(signed);
  assert.deepEqual(windowed.messages, [task, signed, result('s', long('found')), history(signed)[4], history(signed)[5]], 'the signed step is kept, opened by the user turn before it');
  const { reasoning: _reasoning, ...plain } = signed;
  assert.ok(!select(plain).messages.includes(plain), 'the same step unsigned is cut for the headroom');
});

/** The converted forms of a signed message sent: its Anthropic message and its AI SDK message equal those of the message alone. */
function checkConvertedForms({ assembled, turn }: SignedSessionTurn): void {
  const sent = assembled.input.messages;
  const anthropic = toAnthropicMessages(sent).messages;
  const aiSdk = toAiSdkMessages(sent).filter((message) => message.role === 'assistant');
  const assistants = sent.filter((message) => message.role === 'assistant');
  assistants.forEach((message, position) => {
    if (!isSignedAssistant(message)) return;
    assert.equal(JSON.stringify(aiSdk[position]), JSON.stringify(toAiSdkMessages([message])[0]), `turn ${turn}: the AI SDK form of a signed message is its own`);
    const alone = toAnthropicMessages([{ role: 'user', content: 'x' }, message]).messages[1]!;
    const signature = alone.content.find((block) => block.type === 'thinking');
    if (!signature) return;
    const converted = anthropic.find((candidate) => candidate.content.some((block) => JSON.stringify(block) === JSON.stringify(signature)));
    assert.equal(JSON.stringify(converted), JSON.stringify(alone), `turn ${turn}: the Anthropic message of a signed message is its own, thinking first`);
  });
}

test('property: over generated histories with signed thinking or reasoning items, 24 turns under pressure (small caps, projections, summaries, masking, window cuts), the latest signed message goes out byte-identical every turn and older ones identical or not at all', async () => {
  const totals = { compacted: 0, summarized: 0, cut: 0, masked: 0, droppedSigned: 0 };
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('anthropic' as const, 'openai' as const).chain((signed) => historyArbitrary({ open: false, maxSteps: 10, signed })),
      fc.constantFrom(2_500, 4_096, 8_192),
      fc.uniqueArray(fc.nat({ max: 9 }), { maxLength: 2 }),
      async (history, cap, broken) => {
        const steps = stepsOf(history);
        fc.pre(steps.length > 0);
        for (const summarize of [true, false]) {
          const outcome = await runSignedSession({ task: 'Work through the steps and report.', steps, turns: 24, cap, summarize, broken: new Set(broken), rules, check: checkConvertedForms });
          for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += outcome[key];
        }
      },
    ),
    // A fixed seed: the coverage checked below (every path of the rule taken at least once) must not depend on the draw.
    { numRuns: 12, seed: 20_261_201 },
  );
  for (const [what, turns] of Object.entries(totals)) assert.ok(turns > 0, `the generated runs put the rule under ${what} at least once (${JSON.stringify(totals)})`);
});
