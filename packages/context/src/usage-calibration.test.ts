import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkContextState, INITIAL_CONTEXT_STATE } from './context-state.js';
import { ContextInputError } from './errors/context-input-error.js';
import { calibrateContextState, TRUNCATION_MIN_GROWTH } from './usage-calibration.js';

const low = (diagnostics: readonly { code: string }[]) => diagnostics.some((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW');

test('a provider count that stops growing while the input grows is a truncation warning; growth in step with ours is not', () => {
  const first = calibrateContextState(INITIAL_CONTEXT_STATE, { countedTokens: 1_000, reportedTokens: 800, turn: 1 });
  assert.deepEqual(first.state.lastUsage, { counted: 1_000, reported: 800 });
  assert.equal(low(first.diagnostics), false);
  // 400 more by our count; the provider's grew by 320, the same ratio: nothing to say.
  const inStep = calibrateContextState(first.state, { countedTokens: 1_400, reportedTokens: 1_120, turn: 2 });
  assert.equal(low(inStep.diagnostics), false);
  // 400 more again, but the provider's count grew by 10: it read a shorter prompt than was sent.
  const stalled = calibrateContextState(inStep.state, { countedTokens: 1_800, reportedTokens: 1_130, turn: 3 });
  assert.equal(low(stalled.diagnostics), true);
  assert.match(stalled.diagnostics.find((diagnostic) => diagnostic.code === 'CONTEXT_PROVIDER_COUNT_LOW')!.message, /turn 3, 400 more than the call before by Strata's count, while the provider's count went from 1120 to 1130/);
  // A smaller input (a compaction, a cut) or a growth too small to judge says nothing.
  assert.equal(low(calibrateContextState(inStep.state, { countedTokens: 900, reportedTokens: 700, turn: 3 }).diagnostics), false);
  assert.equal(low(calibrateContextState(inStep.state, { countedTokens: 1_400 + TRUNCATION_MIN_GROWTH - 1, reportedTokens: 1_120, turn: 3 }).diagnostics), false);
  // No report: the state is kept as it was.
  assert.equal(calibrateContextState(inStep.state, { countedTokens: 2_000, reportedTokens: undefined, turn: 3 }).state, inStep.state);
});

test('the last usage is part of the persisted state: read back as written, a malformed one names its field', () => {
  const state = calibrateContextState(INITIAL_CONTEXT_STATE, { countedTokens: 1_000, reportedTokens: 1_300, turn: 1 }).state;
  assert.deepEqual(checkContextState(JSON.parse(JSON.stringify(state))), state);
  for (const [lastUsage, field] of [[{ counted: 1 }, 'state.lastUsage.reported'], [{ counted: -1, reported: 2 }, 'state.lastUsage.counted'], ['x', 'state.lastUsage']] as const) {
    assert.throws(() => checkContextState({ version: 1, lastUsage }), (error: unknown) => ContextInputError.isInstance(error) && error.culprit === field, field);
  }
});
