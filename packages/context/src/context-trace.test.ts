import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sectionTokens } from './budget.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { ContextContributorRegistry } from './contributor-registry.js';
import { resolveContextBudget } from './context-configuration.js';
import type { ContextTraceV5 } from './context-trace.js';
import { createContextAssembler } from './default-pipeline.js';
import type { CanonicalMessage } from './messages.js';

// The persisted trace format, pinned: a change here is a visible decision (and a new schema version).
test('golden: the v5 trace of a minimal dynamic turn', async () => {
  const registry = new ContextContributorRegistry();
  const section = { id: 'identity.core', slot: 'identity' as const, content: 'You are Strata.' };
  registry.register({ id: 'identity', scopes: ['main'], required: true, contribute: () => ({ sections: [section] }) });
  const tool = { name: 'search', description: 'Searches.', parameters: { type: 'object' } };
  const user: CanonicalMessage = { role: 'user', content: 'Hi' };
  const assembler = createContextAssembler({ registry, budget: resolveContextBudget({ modelMaxTokens: 2_000, outputReserveTokens: 1_000 }), now: () => 0 });
  const turn = await assembler.assemble({ contextId: 'golden', turn: 1, history: [user], tools: [tool] });

  const estimator = new ConservativeTokenEstimator();
  const systemPrompt = '<section id="identity.core">\nYou are Strata.\n</section>';
  const toolTokens = estimator.countTool(tool);
  const systemTokens = estimator.countMessage({ role: 'system', content: systemPrompt });
  const userTokens = estimator.countMessage(user);
  const expected: ContextTraceV5 = {
    schemaVersion: 5,
    contextId: 'golden',
    turn: 1,
    recoveryAttempt: null,
    mode: 'dynamic',
    scope: 'main',
    selectedPath: 'dynamic',
    budget: {
      inputCapTokens: 1_000,
      systemPromptTokens: 250,
      attachmentTokens: 100,
      contributedMessageTokens: 50,
      pressureTokens: 900,
      configuration: null,
      toolTokens,
      systemPromptUsedTokens: systemTokens,
      callLocalTokens: 0,
      historyBudgetTokens: 1_000 - toolTokens - systemTokens,
      contributorTokens: { identity: sectionTokens(section, estimator) },
      countedWith: 'estimate',
      tokenizerFamily: 'unknown',
      totalTokens: toolTokens + systemTokens + userTokens,
    },
    contributors: [{ contributorId: 'identity', required: true, status: 'ok', durationMs: 0, raw: { sections: [section] } }],
    collection: { contributions: [{ contributorId: 'identity', contribution: { sections: [section] } }], diagnostics: [] },
    admitted: { sections: [section], attachments: [], messages: [], diagnostics: [] },
    planProgress: null,
    renderedContext: {
      systemPrompt,
      sectionIds: ['identity.core'],
      history: [user],
      tools: ['search'],
      window: { historyMessages: 1, keptMessages: 1, droppedMessages: 0, keptUnits: 1, droppedUnits: 0, usedTokens: userTokens, budgetTokens: 1_000 - toolTokens - systemTokens },
      windowDiagnostics: [],
    },
    compaction: {
      reason: null,
      estimatedTokensBefore: null,
      estimatedTokensAfter: null,
      compactedOutputRefs: [],
      summarySourceTokens: null,
      summarySourceMessages: null,
      checkpointTokens: null,
      summaryAttempts: 0,
      summaryRejections: [],
      summarizedMessages: 0,
      recovery: null,
    },
    diagnostics: [],
    llmInput: { messages: [{ role: 'system', content: systemPrompt }, user], tools: [tool] },
  };
  assert.deepEqual(JSON.parse(JSON.stringify(turn.trace)), expected);
});
