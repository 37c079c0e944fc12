import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toOpenAIChat } from './adapters/openai-chat.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { ContextContributorRegistry } from './contributor-registry.js';
import { resolveContextBudget } from './context-configuration.js';
import { createContextAssembler } from './default-pipeline.js';
import { ContextBudgetError } from './errors/context-budget-error.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
import type { WindowStartMark } from './context-state.js';
import { EMPTY_USER_TEXT } from './message-composer.js';
import { buildHistoryUnits, isTaskAnchorCandidate } from './history-units.js';
import type { CanonicalMessage } from './messages.js';
import { historyArbitrary } from '@strata/testing';
import { loadProviderRules } from '@strata/testing';

const rules = await loadProviderRules();
const tools = [{ name: 'search', description: 'Searches the corpus.', parameters: { type: 'object', properties: { query: { type: 'string' } } } }];

function assemblerFor(capTokens: number) {
  const registry = new ContextContributorRegistry();
  registry.register({ id: 'identity', scopes: ['main'], required: true, contribute: () => ({ sections: [{ id: 'identity.core', slot: 'identity', content: 'You are Strata test agent.' }] }) });
  return createContextAssembler({
    registry,
    budget: resolveContextBudget({ modelMaxTokens: capTokens + 1_000, outputReserveTokens: 1_000, systemPromptTokens: 200, attachmentTokens: 100, contributedMessageTokens: 100 }),
  });
}

function lastAnchor(history: readonly CanonicalMessage[]): CanonicalMessage | undefined {
  return history.findLast(isTaskAnchorCandidate);
}

test('the window never splits a unit, keeps anchor and open units, fits the cap, leaves history untouched', async () => {
  const estimator = new ConservativeTokenEstimator();
  const seen = { windowed: 0, refused: 0, checkedByOracle: 0 };
  await fc.assert(
    fc.asyncProperty(historyArbitrary({ open: true }), fc.integer({ min: 600, max: 8_000 }), async (history, cap) => {
      const before = structuredClone(history);
      const assembler = assemblerFor(cap);
      let assembled;
      try {
        assembled = await assembler.assemble({ contextId: 'c1', turn: 1, history, tools });
      } catch (error) {
        assert.ok(ContextBudgetError.isInstance(error), `unexpected ${String(error)}`);
        assert.deepEqual(history, before);
        seen.refused += 1;
        return;
      }
      assert.deepEqual(history, before, 'assembly never mutates the canonical history');
      const sent = assembled.input.messages;
      if (assembled.trace.renderedContext!.window.droppedUnits > 0) seen.windowed += 1;
      const total = sent.reduce((sum, message) => sum + estimator.countMessage(message), 0) + tools.reduce((sum, tool) => sum + estimator.countTool(tool), 0);
      assert.ok(total <= cap, `estimated ${total} exceeds cap ${cap}`);

      const sentSet = new Set(sent);
      for (const unit of buildHistoryUnits(history)) {
        const keptCount = unit.messages.filter((message) => sentSet.has(message)).length;
        assert.ok(keptCount === 0 || keptCount === unit.messages.length, `unit at ${unit.start} was split`);
        if (unit.pendingCallIds.length > 0) assert.equal(keptCount, unit.messages.length, 'an open unit was dropped');
      }
      // An empty text turn is the one thing the composer rewrites (user) or leaves out (assistant): providers reject it.
      const rewritten = (message: CanonicalMessage) => message.role !== 'tool' && message.content.trim() === '' && !(message.role === 'assistant' && message.toolCalls?.length);
      const anchor = lastAnchor(history);
      if (anchor) assert.ok(sentSet.has(anchor) || (rewritten(anchor) && sent.some((message) => message.role === 'user' && message.content === EMPTY_USER_TEXT)), 'the task anchor was dropped');
      const newest = history.at(-1)!;
      assert.ok(sentSet.has(newest) || rewritten(newest), 'the newest step was dropped');

      const lastUnit = buildHistoryUnits(history).at(-1)!;
      if (rules && lastUnit.pendingCallIds.length === 0) {
        const chat = toOpenAIChat(sent);
        assert.deepEqual(rules.violations(chat, 'openai'), []);
        assert.deepEqual(rules.violations(chat, 'anthropic'), []);
        seen.checkedByOracle += 1;
      }
    }),
    { numRuns: 150 },
  );
  console.log(`# window property: ${JSON.stringify(seen)} of 150 runs`);
  assert.ok(seen.windowed >= 30, 'too few generated histories needed windowing to test it');
});

test('must-keep messages over the budget fail clearly before any provider call', () => {
  const policy = new AtomicHistoryWindowPolicy();
  const history: CanonicalMessage[] = [{ role: 'user', content: '请分析这个很长的请求 '.repeat(200) }];
  assert.throws(
    () => policy.select({ messages: history, budgetTokens: 50, count: (message) => new ConservativeTokenEstimator().countMessage(message) }),
    (error: unknown) => ContextBudgetError.isInstance(error) && error.code === 'CONTEXT_WINDOW_MUST_KEEP_OVER_BUDGET' && /task anchor/.test(error.message),
  );
});

test('windowing keeps the newest units that fit plus pinned units, and opens on a user turn', () => {
  const history: CanonicalMessage[] = [
    { role: 'user', content: 'first request' },
    { role: 'assistant', content: 'first answer '.repeat(50) },
    { role: 'user', content: 'second request' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'search', input: {} }, { id: 'b', name: 'search', input: {} }] },
    { role: 'tool', toolCallId: 'a', toolName: 'search', content: 'result a' },
    { role: 'tool', toolCallId: 'b', toolName: 'search', content: 'result b' },
    { role: 'assistant', content: 'done' },
  ];
  const count = () => 10;
  // Pinned: the first request (the run's original one), the anchor (the latest request) and the newest step.
  const window = new AtomicHistoryWindowPolicy().select({ messages: history, budgetTokens: 60, count });
  assert.deepEqual(window.messages, [history[0], ...history.slice(2)]);
  assert.equal(window.stats.droppedUnits, 1);
  // Too small for the tool step: the pinned units stay, the step goes whole.
  const tight = new AtomicHistoryWindowPolicy().select({ messages: history, budgetTokens: 30, count });
  assert.deepEqual(tight.messages, [history[0], history[2], history[6]]);
  assert.throws(() => new AtomicHistoryWindowPolicy().select({ messages: history, budgetTokens: 25, count }), /first request, task anchor/);
  // Room for one more small unit but not the tool step: the step is skipped whole, the older answer fits.
  const skip = new AtomicHistoryWindowPolicy().select({ messages: history, budgetTokens: 40, count });
  assert.deepEqual(skip.messages, [history[0], history[1], history[2], history[6]]);
  // A history opened by an answer: the kept answer may not open the conversation when its request is not kept.
  const opened = [history[1]!, ...history.slice(2)];
  const shed = new AtomicHistoryWindowPolicy().select({ messages: opened, budgetTokens: 25, count });
  assert.deepEqual(shed.messages, [history[2], history[6]], 'a kept assistant answer may not open the conversation');
});

test('property: a window kept per context chooses exactly what a fresh window chooses, turn after turn and across rewrites', () => {
  const estimator = new ConservativeTokenEstimator({ family: 'o200k' });
  const count = (message: CanonicalMessage) => estimator.countMessage(message);
  fc.assert(
    fc.property(historyArbitrary({ open: false, maxSteps: 25 }), fc.integer({ min: 300, max: 6_000 }), fc.nat(60), (history, budgetTokens, rewriteAt) => {
      const kept = new AtomicHistoryWindowPolicy();
      const rewritten = [...history];
      rewritten.splice(rewriteAt % history.length, 1, { role: 'user', content: 'checkpoint: summary', checkpoint: true });
      const turns = [...Array.from({ length: history.length }, (_, end) => history.slice(0, end + 1)), rewritten, history];
      let previousStart: WindowStartMark | undefined;
      for (const messages of turns) {
        const attempt = (policy: AtomicHistoryWindowPolicy, contextId?: string) => {
          try {
            return policy.select({ messages, budgetTokens, count, headroomTokens: Math.floor(budgetTokens / 4), previousStart, contextId });
          } catch (error) {
            return { error: String(error) };
          }
        };
        const expected = attempt(new AtomicHistoryWindowPolicy());
        const actual = attempt(kept, 'ctx');
        assert.deepEqual(actual, expected);
        previousStart = 'start' in expected ? expected.start : undefined;
      }
    }),
    { numRuns: 120 },
  );
});

test('markStart: false keeps the same messages and says no start (no fingerprint of the kept messages)', () => {
  const messages: CanonicalMessage[] = [{ role: 'system', content: 'You are a lab assistant.' }, { role: 'user', content: 'Read every page.' }];
  for (let n = 1; n <= 8; n += 1) {
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `m${n}`, name: 'search', input: { query: `page ${n}` } }] });
    messages.push({ role: 'tool', toolCallId: `m${n}`, toolName: 'search', content: `Page ${n}: the sample held at 21.5 C. `.repeat(30) });
  }
  const estimator = new ConservativeTokenEstimator();
  const count = (message: CanonicalMessage) => estimator.countMessage(message);
  const marked = new AtomicHistoryWindowPolicy().select({ messages, budgetTokens: 1_200, count });
  const unmarked = new AtomicHistoryWindowPolicy().select({ messages, budgetTokens: 1_200, count, markStart: false });
  assert.ok(marked.start !== undefined, 'the cut has a start to mark (the premise of this test)');
  assert.equal(unmarked.start, undefined);
  assert.deepEqual(unmarked.messages, marked.messages);
  assert.deepEqual(unmarked.stats, marked.stats);
});

test('with an exact counter, a cut keeps only units it counted exactly, fits by the exact count, and a history that fits by the estimate is not counted (property)', () => {
  const exact = new ConservativeTokenEstimator({ family: 'o200k' });
  const seen = { cut: 0, whole: 0, refused: 0 };
  fc.assert(
    fc.property(historyArbitrary({ open: true }), fc.array(fc.double({ min: 1, max: 3, noNaN: true }), { minLength: 1, maxLength: 16 }), fc.integer({ min: 100, max: 4_000 }), (history, factors, budgetTokens) => {
      // The fast count over-counts each message by its own factor (never under the exact count), as an estimate may.
      const places = new Map(history.map((message, position) => [message, position]));
      const count = (message: CanonicalMessage) => Math.ceil(exact.countMessage(message) * factors[places.get(message)! % factors.length]!);
      const counted = new Set<CanonicalMessage>();
      const exactCount = (message: CanonicalMessage) => {
        counted.add(message);
        return exact.countMessage(message);
      };
      let window;
      try {
        window = new AtomicHistoryWindowPolicy().select({ messages: history, budgetTokens, count, exactCount, markStart: false });
      } catch (error) {
        assert.ok(ContextBudgetError.isInstance(error));
        seen.refused += 1;
        return;
      }
      const estimated = history.reduce((total, message) => total + count(message), 0);
      if (estimated <= budgetTokens) {
        seen.whole += 1;
        assert.deepEqual(window.messages, history);
        assert.equal(counted.size, 0, 'a history that fits by the estimate is not counted exactly');
        return;
      }
      // Cut by exact counts (everything may still be kept, when the estimate alone ran over).
      seen.cut += 1;
      const kept = window.messages.filter((message) => places.has(message));
      assert.deepEqual(kept.filter((message) => !counted.has(message)), [], 'every kept message was counted exactly');
      const used = window.messages.reduce((total, message) => total + exact.countMessage(message), 0);
      assert.ok(used <= budgetTokens, `${used} exact tokens kept for a budget of ${budgetTokens}`);
    }),
    { numRuns: 300 },
  );
  assert.ok(seen.cut > 20 && seen.whole > 5, `cuts ${seen.cut}, whole ${seen.whole}, refused ${seen.refused}`);
});

test('with an exact counter and a context, a grown history is counted exactly only where no earlier cut counted it, and cut as a fresh window cuts it (property)', () => {
  const exact = new ConservativeTokenEstimator({ family: 'o200k' });
  let recounted = 0;
  fc.assert(
    fc.property(historyArbitrary({ open: true }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 100, max: 4_000 }), (history, tenths, budgetTokens) => {
      const count = (message: CanonicalMessage) => 2 * exact.countMessage(message);
      const times = new Map<CanonicalMessage, number>();
      const exactCount = (message: CanonicalMessage) => {
        times.set(message, (times.get(message) ?? 0) + 1);
        return exact.countMessage(message);
      };
      const kept = new AtomicHistoryWindowPolicy();
      for (const share of [tenths / 10, 1]) {
        const grown = history.slice(0, Math.max(1, Math.round(history.length * share)));
        const cut = (policy: AtomicHistoryWindowPolicy, exactCounter: typeof exactCount) => {
          try {
            return policy.select({ messages: grown, budgetTokens, count, exactCount: exactCounter, contextId: 'c', markStart: false }).messages;
          } catch (error) {
            assert.ok(ContextBudgetError.isInstance(error));
            return 'refused';
          }
        };
        assert.deepEqual(cut(kept, exactCount), cut(new AtomicHistoryWindowPolicy(), (message) => exact.countMessage(message)));
      }
      for (const calls of times.values()) if (calls > 1) recounted += 1;
    }),
    { numRuns: 200 },
  );
  assert.equal(recounted, 0, 'no message is counted exactly twice by one policy over one growing history');
});
