import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CanonicalMessage } from '@strata/context';
import { replayTrajectories } from './replay-trajectories.js';

const listing = (name: string) => `${name}\n${Array.from({ length: 300 }, (_, index) => `src/module_${index}.py: value ${index * 13}`).join('\n')}`;

/** Two steps of large results: over 2,048 tokens sent whole. */
const long: CanonicalMessage[] = [
  { role: 'user', content: 'Read both listings.' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read', input: { part: 1 } }] },
  { role: 'tool', toolCallId: 'c1', toolName: 'read', content: listing('part 1') },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c2', name: 'read', input: { part: 2 } }] },
  { role: 'tool', toolCallId: 'c2', toolName: 'read', content: listing('part 2') },
  { role: 'assistant', content: 'Both read.' },
];
/** A short exchange raw sends whole. */
const short: CanonicalMessage[] = [
  { role: 'user', content: 'What is 2 + 2?' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'a1', name: 'calc', input: { expression: '2 + 2' } }] },
  { role: 'tool', toolCallId: 'a1', toolName: 'calc', content: '4' },
  { role: 'assistant', content: 'It is 4.' },
];

test('whereRawFits sums the compared runs raw sends within the window, as a replay of those runs alone would', async () => {
  const policies = ['raw', 'pressure'] as const;
  const both = await replayTrajectories({ trajectories: [{ id: 'long', messages: long }, { id: 'short', messages: short }], windowTokens: 2_048, policies });
  assert.ok(both.total.raw.overWindowTurns > 0, 'the long run must overflow sent whole');
  assert.equal(both.whereRawFits?.runs, 1);
  const alone = await replayTrajectories({ trajectories: [{ id: 'short', messages: short }], windowTokens: 2_048, policies });
  for (const policy of policies) assert.deepEqual(both.whereRawFits!.total[policy].cost, alone.total[policy].cost, policy);
  // Without raw among the policies there is nothing to compare with.
  assert.equal((await replayTrajectories({ trajectories: [{ id: 'short', messages: short }], windowTokens: 2_048, policies: ['pressure'] })).whereRawFits, undefined);
});
