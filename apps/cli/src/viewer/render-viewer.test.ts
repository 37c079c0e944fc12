import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextTraceV5 } from '@strata/context';
import { viewerTurns } from './render-viewer.js';

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
