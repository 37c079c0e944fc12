import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextContributorRegistry, createContextAssembler, resolveContextBudget, type CanonicalMessage } from '@strata/context';
import { memoryOutputStore } from '@strata/testing';
import { storeToolResult } from '@strata/tools';
import { renderRuns } from './trace-command.js';

test('trace show: below the table, each window cut lists the stored outputs that left the window at that turn, with the call that reads each back', async () => {
  const store = memoryOutputStore();
  const history: CanonicalMessage[] = [{ role: 'user', content: 'Find the cheapest flight.' }];
  const assembler = createContextAssembler({ registry: new ContextContributorRegistry(), budget: resolveContextBudget({ modelMaxTokens: 3_000, outputReserveTokens: 1_000 }) });
  const turns = [];
  for (let step = 1; step <= 12; step += 1) {
    const call = { id: `c${step}`, name: 'search_flights' };
    history.push({ role: 'assistant', content: `step ${step}`, toolCalls: [{ ...call, input: { step } }] });
    history.push(await storeToolResult({ store, contextId: 'ctx', call, outcome: { content: Array.from({ length: 120 }, (_, row) => `flight HAT${step}${row} seats=${row % 13}`).join('\n') } }));
    const { trace } = await assembler.assemble({ contextId: 'ctx', turn: step, history, tools: [] });
    turns.push({ file: `turn-${step}.json`, trace });
  }
  const shown = renderRuns([{ contextId: 'ctx', turns }]);
  // Every output any turn's window listed as dropped is named once, at the turn it left, with its read-back call.
  const listed = new Set(turns.flatMap(({ trace }) => (trace.renderedContext?.windowReceipts ?? []).map((receipt) => (receipt.location as { ref: string }).ref)));
  assert.ok(listed.size >= 3, `the window must cut (${listed.size} listed)`);
  for (const ref of listed) {
    const lines = shown.split('\n').filter((line) => line.includes(`in ref ${ref}, listed in <earlier_outputs>`));
    assert.equal(lines.length, 1, `${ref} once: ${lines.join(' | ')}`);
    assert.ok(lines[0]!.endsWith(`back: read_tool_output({"ref":"${ref}"})`));
  }
  assert.match(shown, /turn \d+ window receipts \(\d+ left the window\):/);
});
