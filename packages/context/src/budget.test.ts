import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyContextBudget } from './budget.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import type { ContextContribution } from './contributor.js';
import { ContextBudgetError } from './errors/context-budget-error.js';

const estimator = new ConservativeTokenEstimator();
const collection = (contribution: ContextContribution) => ({ contributions: [{ contributorId: 'c', contribution }], diagnostics: [] });
const limits = { systemPromptTokens: 300, attachmentTokens: 200, contributedMessageTokens: 100 };

test('protected sections alone over the prompt budget fail, naming them', () => {
  const contribution = { sections: [{ id: 'identity.core', slot: 'identity' as const, content: '你是一个严谨的科研助手。'.repeat(40) }] };
  assert.throws(
    () => applyContextBudget({ collection: collection(contribution), limits, estimator }),
    (error: unknown) => ContextBudgetError.isInstance(error) && error.code === 'CONTEXT_PROTECTED_OVER_BUDGET' && /identity\.core/.test(error.message) && error.availableTokens === 300,
  );
});

test('other sections are admitted by slot then order; overflow is truncated or dropped with diagnostics', () => {
  const contribution: ContextContribution = {
    sections: [
      { id: 'guide', slot: 'guidance', content: 'be brief' },
      { id: 'state.big', slot: 'state', order: 2, content: 'line of state\n'.repeat(200) },
      { id: 'state.small', slot: 'state', order: 1, content: 'small state' },
      { id: 'identity', slot: 'identity', content: 'You are Strata.' },
    ],
  };
  const admitted = applyContextBudget({ collection: collection(contribution), limits, estimator });
  assert.deepEqual(admitted.sections.map((section) => section.id), ['identity', 'state.small', 'state.big']);
  const big = admitted.sections[2]!;
  assert.match(big.content, /\[truncated: \d+ of 2800 characters shown\]$/);
  assert.deepEqual(admitted.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.subject]), [['CONTEXT_SECTION_TRUNCATED', 'state.big'], ['CONTEXT_SECTION_DROPPED', 'guide']]);
});

test('attachments and messages have their own budgets', () => {
  const admitted = applyContextBudget({
    collection: collection({
      attachments: [{ id: 'a1', source: 'memory', trust: 'trusted_data', content: 'x '.repeat(2_000) }],
      messages: [{ id: 'm1', role: 'user', content: 'plan: step 2 of 5' }],
    }),
    limits,
    estimator,
  });
  assert.equal(admitted.messages.length, 1);
  assert.equal(admitted.attachments.length, 1);
  assert.ok(estimator.countText(admitted.attachments[0]!.content) <= 200);
  assert.equal(admitted.diagnostics[0]!.code, 'CONTEXT_ATTACHMENT_TRUNCATED');
});
