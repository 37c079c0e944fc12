import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CompactionReceipt, ContextTraceV5 } from '@strata/context';
import { readableIds } from '../commands/replay-command.js';
import { compacted, compactionSummary, diffTurns, receiptLines, windowReceiptLines } from './read-traces.js';

const EMPTY: ContextTraceV5['compaction'] = { reason: null, estimatedTokensBefore: null, estimatedTokensAfter: null, compactedOutputRefs: [], summarySourceTokens: null, summarySourceMessages: null, checkpointTokens: null, summaryAttempts: 0, summaryRejections: [], summarizedMessages: 0, recovery: null };

const trace = (turn: number, messages: ContextTraceV5['llmInput']['messages'], compaction: ContextTraceV5['compaction'] = EMPTY): ContextTraceV5 => ({
  schemaVersion: 5, contextId: 'ctx', turn, recoveryAttempt: null, mode: 'dynamic', scope: 'main', selectedPath: 'dynamic', budget: null, contributors: [], collection: null,
  admitted: null, planProgress: null, renderedContext: null, compaction, diagnostics: [], llmInput: { messages, tools: [] },
});

const receipt: CompactionReceipt = {
  item: { kind: 'tool-result', index: 3, toolName: 'grep', toolCallId: 'c1' }, action: 'masked', tokensBefore: 900, tokensAfter: 120,
  location: { kind: 'output-ref', ref: 'out_1' }, retrieve: 'read_tool_output({"ref":"out_1"})',
};

test('a pass that changed nothing is not a compaction, in old traces (4024 -> 4024, no outputs) and new ones (no receipts)', () => {
  const old = trace(2, [], { ...EMPTY, reason: 'token-pressure', estimatedTokensBefore: 4024, estimatedTokensAfter: 4024 });
  assert.equal(compacted(old), false);
  assert.equal(compactionSummary(old), null);
  const none = trace(2, [], { ...EMPTY, reason: 'token-pressure', estimatedTokensBefore: 4024, estimatedTokensAfter: 4024, receipts: [] });
  assert.equal(compactionSummary(none), null);
  assert.deepEqual(receiptLines(none), []);
  const real = trace(2, [], {
    ...EMPTY, reason: 'token-pressure', estimatedTokensBefore: 4024, estimatedTokensAfter: 3244, receipts: [receipt],
    trigger: { reason: 'token-pressure', tokens: 4500, thresholdTokens: 4000, capTokens: 5000, pressure: 0.9, historyMessages: 12 },
  });
  assert.equal(compactionSummary(real), 'token-pressure: 4024 -> 3244 tokens; token-pressure at 4500 tokens, 90.0% of the 5000-token cap (threshold 4000)');
  assert.deepEqual(receiptLines(real), ['#3 tool result grep (c1) masked: 900 -> 120 tokens, in ref out_1; back: read_tool_output({"ref":"out_1"})']);
});

test('the diff below a compaction counts what it took out, even when the earlier turn never held the item whole', () => {
  const before = trace(1, [{ role: 'user', content: 'hi' }]);
  const after = trace(2, [{ role: 'user', content: 'hi' }, { role: 'tool', toolCallId: 'c1', toolName: 'grep', content: 'preview', masked: true }], {
    ...EMPTY, reason: 'token-pressure', estimatedTokensBefore: 1000, estimatedTokensAfter: 220, receipts: [receipt],
  });
  assert.equal(diffTurns(before, after).messages.compacted, 1);
  assert.equal(diffTurns(before, trace(2, after.llmInput.messages)).messages.compacted, 0);
});

test('replay trace folders are named after the file and the record, distinct, with no percent escapes', () => {
  const ids = readableIds([
    { file: '../../shared/data/tau-bench/gpt-4o-airline.json', record: '[0]' },
    { file: './a/gpt-4o-airline.json', record: '[0]' },
    { file: 'runs.jsonl', record: 'line 3' },
    { file: '..\\\\x\\\\.hidden.traj', record: 'record' },
  ]);
  assert.deepEqual(ids, ['gpt-4o-airline.0', 'gpt-4o-airline.0-2', 'runs.line-3', 'hidden.record']);
});

test('window receipts: each turn shows the stored outputs that left the window at that turn, listed in <earlier_outputs>', () => {
  const windowed = (id: number): CompactionReceipt => ({
    item: { kind: 'tool-result', index: id * 2 + 1, toolName: 'grep', toolCallId: `c${id}` }, action: 'windowed', tokensBefore: 100 + id, tokensAfter: 0,
    location: { kind: 'output-index', ref: `out_${id}` }, retrieve: `read_tool_output({"ref":"out_${id}"})`,
  });
  const cut = (turn: number, ids: number[]): ContextTraceV5 => ({
    ...trace(turn, []),
    renderedContext: { systemPrompt: '', sectionIds: [], history: [], tools: [], window: { historyMessages: 0, keptMessages: 0, droppedMessages: 0, keptUnits: 0, droppedUnits: ids.length, usedTokens: 0, budgetTokens: 0 }, windowDiagnostics: [], windowReceipts: ids.map(windowed) },
  });
  const first = cut(4, [1, 2]);
  const next = cut(5, [1, 2, 3]);
  assert.deepEqual(windowReceiptLines(first), [
    '#3 tool result grep (c1) windowed: 101 -> 0 tokens, in ref out_1, listed in <earlier_outputs>; back: read_tool_output({"ref":"out_1"})',
    '#5 tool result grep (c2) windowed: 102 -> 0 tokens, in ref out_2, listed in <earlier_outputs>; back: read_tool_output({"ref":"out_2"})',
  ]);
  // The next turn shows only what left since: out_3.
  assert.deepEqual(windowReceiptLines(next, first), ['#7 tool result grep (c3) windowed: 103 -> 0 tokens, in ref out_3, listed in <earlier_outputs>; back: read_tool_output({"ref":"out_3"})']);
  // A trace without window receipts (no cut, or written before them) shows none, and is no compaction.
  assert.deepEqual(windowReceiptLines(trace(6, [])), []);
  assert.equal(compacted(next), false);
});
