import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { INLINE_TOOL_OUTPUT_MAX_CHARS } from '@strata/tools';
import { DEFAULT_MAX_TURNS, MAX_REPEATED_CALL_REFUSALS, MAX_TOOL_CALLS_PER_STEP, repeatedCallsStop, turnsLeft } from './stop-conditions.js';

const architecture = readFileSync(new URL('../../../docs/architecture.md', import.meta.url), 'utf8');

/** The run's limits as docs/architecture.md states them: a change to one is a visible decision. */
const RULES = [
  { name: 'DEFAULT_MAX_TURNS', value: DEFAULT_MAX_TURNS, expected: 50, documented: '50 model turns (`DEFAULT_MAX_TURNS`)' },
  { name: 'MAX_REPEATED_CALL_REFUSALS', value: MAX_REPEATED_CALL_REFUSALS, expected: 3, documented: 'the third refusal of a repeated call (`MAX_REPEATED_CALL_REFUSALS`)' },
  { name: 'MAX_TOOL_CALLS_PER_STEP', value: MAX_TOOL_CALLS_PER_STEP, expected: 128, documented: 'more than 128 calls (`MAX_TOOL_CALLS_PER_STEP`)' },
  { name: 'INLINE_TOOL_OUTPUT_MAX_CHARS', value: INLINE_TOOL_OUTPUT_MAX_CHARS, expected: 256 * 1024, documented: 'past 256 Ki characters (`INLINE_TOOL_OUTPUT_MAX_CHARS`)' },
] as const;

for (const rule of RULES) {
  test(`rule constant ${rule.name} is ${rule.expected}, as docs/architecture.md says`, () => {
    assert.equal(rule.value, rule.expected);
    assert.ok(architecture.includes(rule.documented), `docs/architecture.md no longer says: ${rule.documented}`);
  });
}

test('the turn limit and the repeated-call bound: their defaults, and a given limit instead', () => {
  assert.equal(turnsLeft(DEFAULT_MAX_TURNS - 1, undefined), true);
  assert.equal(turnsLeft(DEFAULT_MAX_TURNS, undefined), false);
  assert.equal(turnsLeft(0, 1), true);
  assert.equal(turnsLeft(1, 1), false);
  assert.equal(repeatedCallsStop(MAX_REPEATED_CALL_REFUSALS - 1, undefined), false);
  assert.equal(repeatedCallsStop(MAX_REPEATED_CALL_REFUSALS, undefined), true);
  assert.equal(repeatedCallsStop(1, 1), true);
});
