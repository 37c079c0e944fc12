// Assembler fuzz property: any history that passes checkCanonicalHistory,
// assembled with a small registry at a roomy or a tight cap, gives a typed
// ContextInputError / ContextBudgetError or a model input that breaks no rule
// of the independent provider oracle, for OpenAI and for Anthropic. Without
// ../shared the oracle part is skipped, and the property still holds the
// assembler to "a typed error or an input its own validator passed".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toOpenAIChat } from './adapters/openai-chat.js';
import { checkCanonicalHistory } from './canonical-history-check.js';
import { resolveContextBudget } from './context-configuration.js';
import { ContextContributorRegistry } from './contributor-registry.js';
import { createContextAssembler } from './default-pipeline.js';
import { ContextBudgetError } from './errors/context-budget-error.js';
import { ContextInputError } from './errors/context-input-error.js';
import type { CanonicalMessage, JsonValue } from './messages.js';
import { loadProviderRules } from '@strata/testing';

const rules = await loadProviderRules();
const RUNS = Number(process.env.STRATA_FUZZ_RUNS ?? 200);

/** A few ids, so results meet calls, repeat, come early or answer nothing. */
const id = fc.constantFrom('a', 'b', 'c', 'call_1');
const text = fc.oneof(fc.constantFrom('', ' ', '\n', 'ok', '上下文', 'x'.repeat(400)), fc.string({ maxLength: 12 }));
const input: fc.Arbitrary<JsonValue> = fc.oneof(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>, fc.constantFrom('not json', '{"a":', ''));

/** Any message the canonical check accepts, in any order. */
const message: fc.Arbitrary<CanonicalMessage> = fc.oneof(
  fc.record({ role: fc.constant('system' as const), content: text }),
  fc.record({ role: fc.constant('user' as const), content: text }),
  fc.record({ role: fc.constant('user' as const), content: text, media: fc.constant([{ type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' }]) }),
  fc.record({ role: fc.constant('assistant' as const), content: text }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: text,
    toolCalls: fc.uniqueArray(fc.record({ id, name: fc.constantFrom('search', 'read'), input }), { minLength: 1, maxLength: 3, selector: (call) => call.id }),
  }),
  fc.record({ role: fc.constant('tool' as const), toolCallId: id, toolName: fc.constantFrom('search', 'read', 'unknown'), content: text, isError: fc.boolean() }),
);

const anyCheckedHistory = fc.array(message, { maxLength: 12 }).map((history) => checkCanonicalHistory(history) as CanonicalMessage[]);

function assembler(inputCapTokens: number) {
  const registry = new ContextContributorRegistry();
  registry.register({ id: 'identity', scopes: ['main'], required: true, contribute: () => ({ sections: [{ id: 'identity.core', slot: 'identity', content: 'You are a careful agent.' }] }) });
  return createContextAssembler({
    registry,
    budget: resolveContextBudget({ inputCapTokens }),
    now: () => 0,
  });
}

test('assembler: any checked history gives a typed error or an input every provider accepts', async () => {
  if (!rules) console.log('# notice: provider-rules oracle absent; checking typed errors only');
  await fc.assert(
    fc.asyncProperty(anyCheckedHistory, fc.constantFrom(6_000, 700), async (history, cap) => {
      let messages: CanonicalMessage[];
      try {
        messages = [...(await assembler(cap).assemble({ contextId: 'fuzz', turn: 1, history, tools: [] })).input.messages];
      } catch (error) {
        if (ContextInputError.isInstance(error) || ContextBudgetError.isInstance(error)) return;
        throw error;
      }
      if (!rules) return;
      const chat = toOpenAIChat(messages);
      assert.deepEqual(rules.violations(chat, 'openai'), [], 'openai');
      assert.deepEqual(rules.violations(chat, 'anthropic'), [], 'anthropic');
    }),
    { numRuns: RUNS },
  );
});

test('assembler: an overflow recovery with any figures gives a typed error or a valid input no larger than the one rejected', async () => {
  const figure = fc.oneof(fc.integer({ min: -10, max: 200_000 }), fc.double(), fc.constantFrom(undefined, null, '9000', Number.NaN, Number.POSITIVE_INFINITY));
  await fc.assert(
    fc.asyncProperty(anyCheckedHistory, fc.constantFrom(6_000, 700), figure, figure, async (history, cap, requestedTokens, limitTokens) => {
      const subject = assembler(cap);
      let rejected: CanonicalMessage[];
      let retried: CanonicalMessage[];
      try {
        const first = await subject.assemble({ contextId: 'fuzz', turn: 1, history, tools: [] });
        rejected = [...first.input.messages];
        const recovery = { reason: 'context overflow', attempt: 1, requestedTokens, limitTokens } as { reason: string; attempt: number; requestedTokens?: number; limitTokens?: number };
        // The retry is given the state the rejected turn returned (what it was counted at), as the agent gives it.
        retried = [...(await subject.assemble({ contextId: 'fuzz', turn: 1, history, tools: [], state: first.state, recovery })).input.messages];
      } catch (error) {
        if (ContextInputError.isInstance(error) || ContextBudgetError.isInstance(error)) return;
        throw error;
      }
      const size = (messages: readonly CanonicalMessage[]) => JSON.stringify(messages).length;
      assert.ok(size(retried) <= size(rejected), 'the retry is never larger');
      if (!rules) return;
      const chat = toOpenAIChat(retried);
      assert.deepEqual(rules.violations(chat, 'openai'), [], 'openai');
      assert.deepEqual(rules.violations(chat, 'anthropic'), [], 'anthropic');
    }),
    { numRuns: RUNS },
  );
});
