import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalMessage } from './messages.js';
import { planProgressOf } from './plan-progress.js';

const plan = (id: string): CanonicalMessage[] => [
  { role: 'assistant', content: '', toolCalls: [{ id, name: 'update_plan', input: { items: [] } }] },
  { role: 'tool', toolCallId: id, toolName: 'update_plan', content: 'ok' },
];
const step = (id: string, isError = false): CanonicalMessage[] => [
  { role: 'assistant', content: '', toolCalls: [{ id, name: 'search', input: {} }] },
  { role: 'tool', toolCallId: id, toolName: 'search', content: 'found', ...(isError ? { isError: true } : {}) },
];

test('no plan: null', () => {
  const history: CanonicalMessage[] = [{ role: 'user', content: 'go' }, ...step('s1')];
  assert.equal(planProgressOf({ original: history, visible: history }), null);
});

test('a visible plan: its call, later model steps and successful non-plan results', () => {
  const history: CanonicalMessage[] = [{ role: 'user', content: 'go' }, ...plan('p1'), ...step('s1'), ...step('s2', true), { role: 'assistant', content: 'done' }];
  assert.deepEqual(planProgressOf({ original: history, visible: history }), { toolCallId: 'p1', anchorFound: true, laterModelSteps: 3, completedNonPlanToolResults: 1 });
});

test('the newest plan is the active one, even when an older one is still visible', () => {
  const original: CanonicalMessage[] = [{ role: 'user', content: 'go' }, ...plan('p1'), ...step('s1'), ...plan('p2')];
  const visible = original.slice(0, 5);
  assert.deepEqual(planProgressOf({ original, visible }), { toolCallId: 'p2', anchorFound: false });
});

test('compaction removed the declaring call: anchorFound false and no age counters, from the run state alone', () => {
  const visible: CanonicalMessage[] = [{ role: 'user', content: 'go' }, ...step('s9')];
  const progress = planProgressOf({ original: visible, visible, activePlanCallId: 'p1' });
  assert.deepEqual(progress, { toolCallId: 'p1', anchorFound: false });
  assert.ok(!('laterModelSteps' in progress!) && !('completedNonPlanToolResults' in progress!));
});
