// The adapters' acceptance, measured in each SDK's own loop as the benchmarks do: 30 model steps over
// real 2-9 KB tool outputs at a 24,000-token budget; 0 steps over it (exact count), the task on every
// step, a cache-priced input cost no higher than the same loop without the masked view (every result
// sent whole until compaction), no oracle violation for either provider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadProviderRules } from '@strata/testing';
import { strataRequests as aiSdkRequests, strataRow as aiSdkRow } from './ai-sdk-loop.bench.js';
import { loopToolOutputs, type LoopRow } from './host-loop-measure.js';
import { strataRequests as langChainRequests, strataRow as langChainRow } from './langchain-loop.bench.js';
import { strataRequests as openAIAgentsRequests, strataRow as openAIAgentsRow } from './openai-agents-loop.bench.js';

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

for (const [sdk, strataRequests] of [
  ['AI SDK', aiSdkRequests],
  ['LangChain', langChainRequests],
  ['OpenAI Agents SDK', openAIAgentsRequests],
] as const) {
  test(`${sdk}: a new adapter instance for every model call sends, call for call, the requests one instance sends`, async (t) => {
    const outputs = loopToolOutputs();
    if (!outputs) return t.skip('../shared is absent');
    // A budget small enough that the window cuts and compaction projects: what the context state carries between calls.
    const kept = await strataRequests(outputs, false, 3_500);
    const fresh = await strataRequests(outputs, true, 3_500);
    assert.equal(fresh.length, kept.length);
    // What the SDK sent its model, in the provider's shape: the bytes of every request.
    fresh.forEach((request, index) => assert.equal(JSON.stringify(request.chat), JSON.stringify(kept[index]!.chat), `call ${index + 1}`));
    assert.ok(kept.some((request) => JSON.stringify(request.chat).includes('read_tool_output')), 'the loop must mask for the comparison to cover it');
  });
}
