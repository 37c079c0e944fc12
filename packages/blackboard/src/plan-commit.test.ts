import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlackboardConflictError } from './errors/blackboard-conflict-error.js';
import { planCommit } from './plan-commit.js';

const author = { kind: 'worker', name: 'narrator' } as const;

test('numbers the writes after the head in write order; a write without a role gives an entry without one', () => {
  const plan = planCommit(
    { author, writes: [{ tag: '运行.叙述', content: 'a', role: 'final' }, { tag: '运行.事件流', content: 'b', mode: 'replace' }] },
    { head: 7, createdAt: '2026-01-01T00:00:00.000Z' },
  );
  assert.equal(plan.revision, 9);
  assert.deepEqual(
    plan.writes.map((planned) => planned.entry),
    [
      { tag: '运行.叙述', content: 'a', author, role: 'final', revision: 8, createdAt: '2026-01-01T00:00:00.000Z' },
      { tag: '运行.事件流', content: 'b', author, revision: 9, createdAt: '2026-01-01T00:00:00.000Z' },
    ],
  );
  assert.equal(plan.writes[1]?.write.mode, 'replace');
  assert.deepEqual(planCommit({ author, writes: [] }, { head: 3, createdAt: 'now' }), { writes: [], revision: 3 });
});

test('a commit that expects another head is refused', () => {
  assert.throws(
    () => planCommit({ author, writes: [{ tag: 'a', content: 'x' }], expectedRevision: 2 }, { head: 3, createdAt: 'now' }),
    (error: unknown) => BlackboardConflictError.isInstance(error) && error.expectedRevision === 2 && error.actualRevision === 3,
  );
  assert.equal(planCommit({ author, writes: [{ tag: 'a', content: 'x' }], expectedRevision: 3 }, { head: 3, createdAt: 'now' }).revision, 4);
});
