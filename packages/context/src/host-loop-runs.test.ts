import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PendingUsage } from './host-loop-runs.js';

test('PendingUsage: a turn is taken once; a second call of one run hands the first back unwritten-not-lost; turns past the limit come back oldest first', () => {
  const pending = new PendingUsage<string, string>(3);
  assert.deepEqual(pending.add('a', 'a1'), []);
  assert.equal(pending.take('a'), 'a1');
  assert.equal(pending.take('a'), undefined, 'taken once');
  assert.deepEqual(pending.add('a', 'a2'), []);
  assert.deepEqual(pending.add('a', 'a3'), ['a2'], 'the turn that still waited is handed back, not dropped');
  assert.deepEqual(pending.add('b', 'b1'), []);
  assert.deepEqual(pending.add('c', 'c1'), []);
  assert.deepEqual(pending.add('d', 'd1'), ['a3'], 'a3 waited three later calls');
  assert.deepEqual(pending.add('e', 'e1'), ['b1']);
  assert.equal(pending.take('c'), 'c1');
});
