import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStores } from '@strata/store';
import { settledTurn } from './settled-turn.js';

test('settled turn: compactions alone leave the turn to replay; a stored step settles it, completed when it is an answer', async () => {
  const { sessions } = createMemoryStores();
  const contextId = 'run_1';
  const check = (startVersion: number) => settledTurn({ sessions, contextId, startVersion });
  assert.equal(await check(0), undefined);
  await sessions.append(contextId, [{ role: 'user', content: 'steps t 1' }], { expectedVersion: 0 });
  const start = (await sessions.load(contextId))!.version;
  assert.equal(await check(start), undefined);
  // The turn compacted the history, then its worker died: replay it.
  await sessions.replace(contextId, [{ role: 'user', content: 'steps t 1 (compacted)' }], { reason: 'pressure', replacedFromVersion: start, replacedMessages: 1 });
  assert.equal(await check(start), undefined);
  // The turn stored its step (a call and its result), then died: the run goes on with the next turn.
  const step = [
    { role: 'assistant' as const, content: '', toolCalls: [{ id: 'call_1', name: 'record_step', input: { n: 1 } }] },
    { role: 'tool' as const, toolCallId: 'call_1', toolName: 'record_step', content: 'recorded step 1' },
  ];
  await sessions.append(contextId, step, { expectedVersion: start + 1 });
  assert.deepEqual(await check(start), { stopReason: 'turn-end', text: '' });
  // A turn that stored its answer ended the run.
  const next = (await sessions.load(contextId))!.version;
  await sessions.append(contextId, [{ role: 'assistant', content: 'done t' }], { expectedVersion: next });
  assert.deepEqual(await check(next), { stopReason: 'completed', text: 'done t' });
});
