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

test('contributed messages: when not all fit, the newest win, in their order', () => {
  const messages = ['m1', 'm2', 'm3'].map((id) => ({ id, role: 'user' as const, content: `${id} `.repeat(60) }));
  const admitted = applyContextBudget({ collection: collection({ messages }), limits: { ...limits, contributedMessageTokens: 90 }, estimator });
  assert.deepEqual(admitted.messages.map((message) => message.id).at(-1), 'm3');
  assert.ok(!admitted.messages.some((message) => message.id === 'm1'), 'the oldest goes first');
  assert.ok(admitted.diagnostics.some((diagnostic) => diagnostic.subject === 'm1' && diagnostic.code === 'CONTEXT_MESSAGE_DROPPED'));
});

test('contributed message count and size limits: the newest win, a long one is truncated', () => {
  const messages = ['m1', 'm2', 'm3', 'm4'].map((id) => ({ id, role: 'user' as const, content: id === 'm4' ? 'word '.repeat(400) : id }));
  const admitted = applyContextBudget({ collection: collection({ messages }), limits: { ...limits, contributedMessageTokens: 1_000, contributedMessages: 2, contributedMessageSizeTokens: 50 }, estimator });
  assert.deepEqual(admitted.messages.map((message) => message.id), ['m3', 'm4']);
  assert.ok(estimator.countText(admitted.messages[1]!.content) <= 50);
  assert.deepEqual(admitted.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.subject]).sort(), [['CONTEXT_MESSAGE_DROPPED', 'm1'], ['CONTEXT_MESSAGE_DROPPED', 'm2'], ['CONTEXT_MESSAGE_TRUNCATED', 'm4']]);
});

test('the section limit truncates one long non-protected section, never a protected one', () => {
  const contribution: ContextContribution = {
    sections: [
      { id: 'identity', slot: 'identity', content: 'You are Strata. '.repeat(20) },
      { id: 'state.big', slot: 'state', content: 'line of state\n'.repeat(40) },
    ],
  };
  const admitted = applyContextBudget({ collection: collection(contribution), limits: { ...limits, systemPromptTokens: 2_000, sectionTokens: 40 }, estimator });
  assert.equal(admitted.sections[0]!.content, 'You are Strata. '.repeat(20));
  assert.ok(estimator.countText(admitted.sections[1]!.content) <= 40);
  assert.deepEqual(admitted.diagnostics.map((diagnostic) => diagnostic.subject), ['state.big']);
});
