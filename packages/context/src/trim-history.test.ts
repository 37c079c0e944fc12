import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { historyArbitrary, loadProviderRules } from '@strata/testing';
import { toOpenAIChat } from './adapters/openai-chat.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { ContextBudgetError } from './errors/context-budget-error.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { ContextInputError } from './errors/context-input-error.js';
import { ExactTokenEstimator } from './exact-token-estimator.js';
import { messageText } from './message-text.js';
import type { CanonicalMessage } from './messages.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
import { trimHistory } from './trim-history.js';

const rules = await loadProviderRules();
const exact = new ExactTokenEstimator({ family: 'o200k' });
const unknown = new ConservativeTokenEstimator({ family: 'unknown' });
const cl100k = new ExactTokenEstimator({ family: 'cl100k' });
const sum = (messages: readonly CanonicalMessage[], counter: { countMessage(message: CanonicalMessage): number }) => messages.reduce((total, message) => total + counter.countMessage(message), 0);

const page = (n: number) => `Page ${n}: the sample was stable at 21.5 C. 第${n}页：样品温度稳定。`.repeat(20);
const history: CanonicalMessage[] = [{ role: 'system', content: 'You are a lab assistant.' }, { role: 'user', content: 'Read every page and report the temperature.' }];
for (let n = 1; n <= 12; n += 1) {
  history.push({ role: 'assistant', content: '', toolCalls: [{ id: `p${n}`, name: 'read_notes', input: { page: n } }] });
  history.push({ role: 'tool', toolCallId: `p${n}`, toolName: 'read_notes', content: page(n) });
}

test('trimHistory keeps the newest whole steps, the system prompt and the request, within the budget', () => {
  const trimmed = trimHistory(history, { maxTokens: 2_000 });
  assert.ok(sum(trimmed, unknown) <= 2_000);
  assert.equal(trimmed[0], history[0]);
  assert.ok(trimmed.includes(history[1]!), 'the latest real user request is kept');
  assert.equal(trimmed.at(-1), history.at(-1), 'the newest step is kept');
  assert.ok(trimmed.length < history.length);
  if (rules) for (const provider of ['openai', 'anthropic'] as const) assert.deepEqual(rules.violations(toOpenAIChat(trimmed), provider), []);
});

test('with a model whose tokenizer is known, exact counts decide near the budget and keep more', () => {
  // A budget that the system prompt, the request and the newest four steps fill by the exact count: the estimate, which over-counts, fits fewer.
  const kept = [...history.slice(0, 2), ...history.slice(-8)];
  const budget = sum(kept, exact) + 2;
  assert.ok(sum(kept, unknown) > budget, 'the estimate over-counts these messages (the premise of this test)');
  const estimated = trimHistory(history, { maxTokens: budget });
  const counted = trimHistory(history, { maxTokens: budget, model: 'gpt-4o' });
  assert.ok(sum(counted, exact) <= budget, 'within the budget by the exact count');
  assert.equal(counted.length, 10, 'the system prompt, the request and four whole steps');
  assert.ok(counted.length > estimated.length, `${counted.length} messages kept against ${estimated.length} on estimates`);
  // Far below the budget nothing is cut and nothing is counted exactly.
  assert.deepEqual(trimHistory(history, { maxTokens: 100_000, model: 'gpt-4o' }), history);
});

test('any value in: a typed error naming the field, or a valid trimmed history (property)', () => {
  assert.throws(() => trimHistory(42, { maxTokens: 100 }), (error: unknown) => ContextInputError.isInstance(error) && /history/.test(error.message));
  assert.throws(() => trimHistory([{ role: 'user' }], { maxTokens: 100 }), (error: unknown) => ContextInputError.isInstance(error) && /history\[0\]/.test(error.message));
  assert.throws(() => trimHistory(history, { maxTokens: 0 }), (error: unknown) => ConfigurationError.isInstance(error) && error.setting === 'maxTokens');
  assert.throws(() => trimHistory(history, { maxTokens: 10 }), (error: unknown) => ContextBudgetError.isInstance(error));
  // Found by the property below: an old short message ("[empty message]") that the estimate under-counts by one must be counted exactly when it may be kept.
  const short: CanonicalMessage[] = [
    { role: 'system', content: 'You are a careful research agent.' },
    { role: 'user', content: '\n' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'search', input: { query: 'q1' } }, { id: 'call_2', name: 'read_file', input: { query: 'q2' } }] },
    { role: 'tool', toolCallId: 'call_1', toolName: 'search', content: 'the' },
    { role: 'tool', toolCallId: 'call_2', toolName: 'read_file', content: '结果 the 工具调用' },
    { role: 'user', content: 'tool JSON 工具调用 证据 the 上下文 证据 the the' },
    { role: 'user', content: 'JSON 工具调用 42 JSON' },
  ];
  assert.ok(sum(trimHistory(short, { maxTokens: 50, model: 'gpt-4o' }), exact) <= 50);
  fc.assert(
    fc.property(historyArbitrary({ open: true, maxSteps: 20 }), fc.integer({ min: 50, max: 8_000 }), fc.constantFrom(undefined, 'gpt-4o', 'cl100k', 'claude-sonnet-4'), (raw, maxTokens, model) => {
      let trimmed: CanonicalMessage[];
      try {
        trimmed = trimHistory(raw, { maxTokens, ...(model ? { model } : {}) });
      } catch (error) {
        assert.ok(ContextBudgetError.isInstance(error), String(error));
        return;
      }
      // Within the budget by the model's exact count, or by the estimate when its tokenizer is not known.
      const counter = model === 'gpt-4o' ? exact : model === 'cl100k' ? cl100k : unknown;
      assert.ok(sum(trimmed, counter) <= maxTokens, `${sum(trimmed, counter)} > ${maxTokens}`);
      if (rules) for (const provider of ['openai', 'anthropic'] as const) assert.deepEqual(rules.violations(toOpenAIChat(trimmed), provider), []);
    }),
    { numRuns: 150 },
  );
});

/**
 * A fast counter far off message by message, four times over or a quarter under (by the parity of the text's
 * length): whatever it says of a message, every message trimHistory keeps must have been counted exactly.
 */
class Skewed extends ConservativeTokenEstimator {
  override countMessage(message: CanonicalMessage): number {
    const tokens = exact.countMessage(message);
    return messageText(message).length % 2 === 1 ? tokens * 4 : Math.floor(tokens / 4);
  }
}

test('a history trimmed as it grows, with exact counts kept across calls: every trim within the budget by the exact count and valid for both providers, whatever the fast counter says of each message (property)', () => {
  fc.assert(
    fc.property(historyArbitrary({ open: true, maxSteps: 20 }), fc.integer({ min: 200, max: 4_000 }), fc.integer({ min: 1, max: 6 }), fc.boolean(), (raw, maxTokens, growth, skewed) => {
      const messages = raw as CanonicalMessage[];
      const estimator = skewed ? new Skewed({ family: 'o200k' }) : undefined;
      // The history as a caller holds it before each call: `growth` messages more each time, a new array over the same messages.
      const ends: number[] = [];
      for (let end = growth; end < messages.length; end += growth) ends.push(end);
      ends.push(messages.length);
      for (const end of ends) {
        let trimmed: CanonicalMessage[];
        try {
          trimmed = trimHistory(messages.slice(0, end), { maxTokens, model: 'gpt-4o', estimator });
        } catch (error) {
          assert.ok(ContextBudgetError.isInstance(error) || ContextInputError.isInstance(error), String(error));
          continue;
        }
        // Exact counts decide once the fast counter's total reaches the budget (below it, the fast counter alone: not checked here).
        if (!estimator || sum(messages.slice(0, end), estimator) >= maxTokens) assert.ok(sum(trimmed, exact) <= maxTokens, `at ${end} of ${messages.length} messages: ${sum(trimmed, exact)} > ${maxTokens}`);
        if (rules) for (const provider of ['openai', 'anthropic'] as const) assert.deepEqual(rules.violations(toOpenAIChat(trimmed), provider), [], `at ${end} of ${messages.length} messages`);
      }
    }),
    { numRuns: 60 },
  );
});

/** The conservative estimator, telling how many texts it counted since `counted` was last set. */
class Tallying extends ConservativeTokenEstimator {
  counted = 0;
  override countText(text: string): number {
    this.counted += 1;
    return super.countText(text);
  }
}

test('repeated trims of a growing history count only what was appended, and trim as a fresh history would', () => {
  const estimator = new Tallying({ family: 'unknown' });
  const growing: CanonicalMessage[] = history.slice(0, 4);
  trimHistory(growing, { maxTokens: 2_000, estimator });
  for (let end = 5; end <= history.length; end += 1) {
    growing.push(history[end - 1]!);
    estimator.counted = 0;
    const trimmed = trimHistory([...growing], { maxTokens: 2_000, estimator });
    assert.ok(estimator.counted <= 2, `at ${end} messages, ${estimator.counted} texts counted for one appended message`);
    // A fresh history (new objects, nothing cached) trims to the same messages.
    assert.deepEqual(trimmed, trimHistory(structuredClone(growing), { maxTokens: 2_000 }));
  }
});

test('a history longer than the counters keep counts of (40,000 messages) trimmed as it grows still counts what was appended, with the estimate and with exact counts', () => {
  const long: CanonicalMessage[] = [{ role: 'system', content: 'You are a lab assistant.' }];
  for (let n = 0; n < 20_000; n += 1) long.push({ role: 'user', content: `reading ${n}: 21.5 C` }, { role: 'assistant', content: `noted ${n}` });
  for (const model of [undefined, 'gpt-4o']) {
    const estimator = new Tallying({ family: 'o200k' });
    const growing = long.slice();
    trimHistory(growing, { maxTokens: 2_000, estimator, model });
    for (let call = 0; call < 3; call += 1) {
      growing.push({ role: 'user', content: `reading again ${call}` }, { role: 'assistant', content: `noted again ${call}` });
      estimator.counted = 0;
      trimHistory(growing, { maxTokens: 2_000, estimator, model });
      assert.ok(estimator.counted <= 4, `model ${String(model)}, call ${call}: ${estimator.counted} texts estimated for two appended messages`);
    }
  }
});

test('exact counts only near the cut: old steps go by their estimate, and the result is the cut exact counts everywhere give', () => {
  // 60 steps of distinct pages; the budget holds the system prompt, the request and a few steps.
  const long: CanonicalMessage[] = [{ role: 'system', content: 'You are a lab assistant.' }, { role: 'user', content: 'Read every page and report the temperature.' }];
  for (let n = 1; n <= 60; n += 1) {
    long.push({ role: 'assistant', content: '', toolCalls: [{ id: `q${n}`, name: 'read_notes', input: { page: n } }] });
    long.push({ role: 'tool', toolCallId: `q${n}`, toolName: 'read_notes', content: page(n) });
  }
  const counted: string[] = [];
  const countText = ExactTokenEstimator.prototype.countText;
  ExactTokenEstimator.prototype.countText = function (this: ExactTokenEstimator, text: string) {
    counted.push(text);
    return countText.call(this, text);
  };
  let trimmed: CanonicalMessage[];
  try {
    trimmed = trimHistory(structuredClone(long), { maxTokens: 3_000, model: 'gpt-4o' });
  } finally {
    ExactTokenEstimator.prototype.countText = countText;
  }
  const oldPages = counted.filter((text) => /^Page (\d+):/.test(text) && Number(/^Page (\d+):/.exec(text)![1]) <= 40);
  assert.deepEqual(oldPages, [], 'no page of the first 40 steps is counted exactly');
  assert.ok(sum(trimmed, exact) <= 3_000);
  // Every message counted exactly, through the same window: the same messages kept.
  const everywhere = new AtomicHistoryWindowPolicy().select({ messages: structuredClone(long), budgetTokens: 3_000, count: (message) => exact.countMessage(message) }).messages;
  assert.deepEqual(trimmed, everywhere);
});

test('a message the cut keeps although it went by its estimate (the latest signed step, older than the cut) is counted exactly and the cut made again', () => {
  // The signed step's result is estimated at three fifths of its exact count. Walked newest first, the step comes after
  // the newest two steps and a short reply, where less is left than its estimate: it goes by its estimate. The window
  // pins it first, by that estimate, and fills the rest with the newest two steps: over the budget by the exact count
  // unless the kept estimate is counted exactly and the cut made again.
  const notes = (n: number) => `Note ${n}: the sample held at 21.5 C for the whole run, then cooled.`.repeat(30);
  const signed: CanonicalMessage = { role: 'assistant', content: '', reasoning: [{ text: 'Read the first notes.', providerMetadata: { anthropic: { signature: 'sig-1' } } }], toolCalls: [{ id: 's1', name: 'read_notes', input: { page: 0 } }] };
  const signedResult: CanonicalMessage = { role: 'tool', toolCallId: 's1', toolName: 'read_notes', content: notes(0) };
  const reply: CanonicalMessage = { role: 'assistant', content: 'Noted.' };
  const steps: CanonicalMessage[] = [{ role: 'system', content: 'You are a lab assistant.' }, { role: 'user', content: 'Read the notes and report the temperature.' }, signed, signedResult, reply];
  for (let n = 1; n <= 6; n += 1) {
    steps.push({ role: 'assistant', content: '', toolCalls: [{ id: `n${n}`, name: 'read_notes', input: { page: n } }] });
    steps.push({ role: 'tool', toolCallId: `n${n}`, toolName: 'read_notes', content: notes(n) });
  }
  class UnderCountsTheSignedResult extends ConservativeTokenEstimator {
    override countMessage(message: CanonicalMessage): number {
      return message === signedResult ? Math.floor((exact.countMessage(message) * 3) / 5) : exact.countMessage(message);
    }
  }
  const estimator = new UnderCountsTheSignedResult({ family: 'o200k' });
  const step = exact.countMessage(steps.at(-2)!) + exact.countMessage(steps.at(-1)!);
  const maxTokens = sum(steps.slice(0, 2), exact) + 2 * step + exact.countMessage(reply) + sum([signed, signedResult], estimator) - 5;
  const trimmed = trimHistory(steps, { maxTokens, model: 'gpt-4o', estimator });
  assert.ok(trimmed.includes(signed) && trimmed.includes(signedResult), 'the latest signed step is kept');
  assert.ok(sum(trimmed, exact) <= maxTokens, `${sum(trimmed, exact)} > ${maxTokens}`);
  if (rules) for (const provider of ['openai', 'anthropic'] as const) assert.deepEqual(rules.violations(toOpenAIChat(trimmed), provider), []);
});

/** trimHistory on the same messages with nothing kept from an earlier call: new objects, so a new conversation and no count cached. */
const fresh = (messages: readonly CanonicalMessage[], options: Parameters<typeof trimHistory>[1]) => {
  try {
    return trimHistory(structuredClone(messages), options);
  } catch (error) {
    return ContextBudgetError.isInstance(error) ? 'over budget' : error;
  }
};

test('a caller that changes its history array in place between calls gets what a fresh trim of the array gives, not the last answer', () => {
  const held: CanonicalMessage[] = history.slice(0, 6);
  const options = { maxTokens: 1_500, model: 'gpt-4o' };
  trimHistory(held, options);
  held.push(history[6]!, history[7]!);
  assert.deepEqual(trimHistory(held, options), fresh(held, options), 'two messages pushed onto the same array');
  held[3] = { ...history[3]!, content: page(99) } as CanonicalMessage;
  assert.deepEqual(trimHistory(held, options), fresh(held, options), 'a message replaced in the same array');
  held.splice(4, 2);
  assert.deepEqual(trimHistory(held, options), fresh(held, options), 'a step removed from the same array');
});

test('trimHistory with what it keeps across calls equals a fresh trimHistory on the same input, also when the caller changes its array in place between calls (property)', () => {
  const edit = fc.record({ grow: fc.integer({ min: 1, max: 5 }), change: fc.constantFrom('none', 'none', 'replace', 'remove', 'truncate'), at: fc.nat() });
  fc.assert(
    fc.property(historyArbitrary({ open: true, maxSteps: 16 }), fc.integer({ min: 120, max: 3_000 }), fc.array(edit, { minLength: 1, maxLength: 10 }), fc.constantFrom(undefined, 'gpt-4o'), (raw, maxTokens, edits, model) => {
      const source = raw as CanonicalMessage[];
      const options = { maxTokens, model };
      // The caller's one array, grown, edited and passed again each call.
      const held: CanonicalMessage[] = [];
      let next = 0;
      for (const { grow, change, at } of edits) {
        for (let added = 0; added < grow && next < source.length; added += 1) held.push(source[next++]!);
        if (held.length > 1 && change === 'replace') held[at % held.length] = structuredClone(held[at % held.length]!);
        if (held.length > 1 && change === 'remove') held.splice(at % held.length, 1);
        if (held.length > 1 && change === 'truncate') held.length = 1 + (at % (held.length - 1));
        let kept: unknown;
        try {
          kept = trimHistory(held, options);
        } catch (error) {
          kept = ContextBudgetError.isInstance(error) ? 'over budget' : error;
        }
        const expected = fresh(held, options);
        if (ContextInputError.isInstance(expected)) assert.ok(ContextInputError.isInstance(kept), String(kept));
        else assert.deepEqual(kept, expected, `after ${held.length} messages held`);
      }
    }),
    { numRuns: 80 },
  );
});
