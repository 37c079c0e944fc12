// The adapters' acceptance, measured in each SDK's own loop as the benchmarks do: 30 model steps over
// real 2-9 KB tool outputs at a 24,000-token budget; 0 steps over it (exact count), the task on every
// step, a cache-priced input cost no higher than the same loop without the masked view (every result
// sent whole until compaction), no oracle violation for either provider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProviderRules } from '@strata/testing';
import { strataRow as aiSdkRow } from './ai-sdk-loop.bench.js';
import { loopToolOutputs, type LoopRow } from './host-loop-measure.js';
import { strataRow as langChainRow } from './langchain-loop.bench.js';
import { strataRow as openAIAgentsRow } from './openai-agents-loop.bench.js';

for (const [sdk, strataRow] of [
  ['AI SDK', aiSdkRow],
  ['LangChain', langChainRow],
  ['OpenAI Agents SDK', openAIAgentsRow],
] as const) {
  test(`${sdk}: 30 steps at 24,000 tokens, none over, the task kept, cost at most the unmasked view's, provider-valid`, async (t) => {
    const outputs = loopToolOutputs();
    const rules = await loadProviderRules();
    if (!outputs || !rules) return t.skip('../shared is absent');
    const row: LoopRow = await strataRow(outputs, rules);
    t.diagnostic(JSON.stringify(row));
    assert.equal(row.steps, 30);
    assert.equal(row.overBudget, 0);
    assert.equal(row.taskKept, '30/30');
    // The masked view sends the newest step's bodies once after the history, so less of each request
    // repeats the one before (reuse), and the bill is what the cache makes of it (cost).
    const unmasked = await strataRow(outputs, rules, false);
    t.diagnostic(`unmasked: ${JSON.stringify(unmasked)}`);
    assert.ok(row.cost <= unmasked.cost, `cost ${row.cost} against ${unmasked.cost} unmasked`);
    assert.equal(row.openaiViolations, 0);
    assert.equal(row.anthropicViolations, 0);
  });
}
