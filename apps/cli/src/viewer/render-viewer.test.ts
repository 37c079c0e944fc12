import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CompactionReceipt, ContextTraceV5 } from '@strata/context';
import { viewerDetail, viewerTurns } from './render-viewer.js';

const trace = (turn: number, modelCall?: ContextTraceV5['modelCall']): ContextTraceV5 => ({
  schemaVersion: 5,
  contextId: 'ctx',
  turn,
  recoveryAttempt: null,
  mode: 'dynamic',
  scope: 'main',
  selectedPath: 'dynamic',
  budget: null,
  contributors: [],
  collection: null,
  admitted: null,
  planProgress: null,
  renderedContext: null,
  compaction: { reason: null, estimatedTokensBefore: null, estimatedTokensAfter: null, compactedOutputRefs: [], summarySourceTokens: null, summarySourceMessages: null, checkpointTokens: null, summaryAttempts: 0, summaryRejections: [], summarizedMessages: 0, recovery: null },
  diagnostics: [],
  llmInput: { messages: [{ role: 'user', content: 'hi' }], tools: [] },
  modelCall,
});

test('the viewer shows the provider-reported input tokens where the run recorded its model call, and nothing where it did not', () => {
  const recorded: ContextTraceV5['modelCall'] = {
    outcome: 'finish',
    output: { role: 'assistant', content: 'ok' },
    error: null,
    usage: { inputTokens: 1_234, outputTokens: 5, cachedInputTokens: 1_000, cacheWriteInputTokens: null },
    latencyMs: { assembly: 1, model: 20 },
  };
  const turns = viewerTurns([{ contextId: 'ctx', turns: [{ file: 'turn-0001.json', trace: trace(1, recorded) }, { file: 'turn-0002.json', trace: trace(2) }] }]);
  assert.deepEqual(turns.map((turn) => turn.reportedInputTokens), [1_234, null]);
});

test("a turn's detail carries the receipts of the stored outputs that left the window at that turn", () => {
  const windowed = (id: number): CompactionReceipt => ({
    item: { kind: 'tool-result', index: id, toolName: 'grep', toolCallId: `c${id}` }, action: 'windowed', tokensBefore: 50, tokensAfter: 0,
    location: { kind: 'output-index', ref: `out_${id}` }, retrieve: `read_tool_output({"ref":"out_${id}"})`,
  });
  const cut = (turn: number, ids: number[]): ContextTraceV5 => ({
    ...trace(turn),
    renderedContext: { systemPrompt: '', sectionIds: [], history: [], tools: [], window: { historyMessages: 0, keptMessages: 0, droppedMessages: 0, keptUnits: 0, droppedUnits: ids.length, usedTokens: 0, budgetTokens: 0 }, windowDiagnostics: [], windowReceipts: ids.map(windowed) },
  });
  const run = { contextId: 'ctx', turns: [{ file: 'turn-0001.json', trace: cut(1, [1]) }, { file: 'turn-0002.json', trace: cut(2, [1, 2]) }, { file: 'turn-0003.json', trace: trace(3) }] };
  const refs = [0, 1, 2].map((index) => viewerDetail(run, index).windowReceipts.map((line) => /in ref (\S+),/.exec(line)?.[1]));
  assert.deepEqual(refs, [['out_1'], ['out_2'], []]);
  assert.match(viewerDetail(run, 1).windowReceipts[0]!, /listed in <earlier_outputs>; back: read_tool_output\(\{"ref":"out_2"\}\)$/);
});
