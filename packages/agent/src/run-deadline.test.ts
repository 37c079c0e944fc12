import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunDeadline } from './run-deadline.js';
import { manualTimers } from './testing/run-fixtures.js';

test('an external wait pauses the run clock: after it, only the unused active time is left', () => {
  let now = 0;
  const { timers, pending } = manualTimers();
  const deadline = new RunDeadline({ runTimeoutMs: 1_000, now: () => now, timers });
  assert.deepEqual([...pending.values()].map((timer) => timer.delayMs), [1_000]);
  now = 400;
  const end = deadline.beginExternalWait();
  assert.equal(pending.size, 0, 'no deadline runs during the wait');
  now = 60_000; // a long approval wait
  end();
  end(); // ending twice is harmless
  assert.deepEqual([...pending.values()].map((timer) => timer.delayMs), [600]);
  [...pending.values()][0]!.callback();
  assert.equal(deadline.signal.aborted, true);
  assert.ok(RunDeadline.isTimeout(deadline.signal.reason) && deadline.signal.reason.which === 'run');
});

test('progress restarts the idle timer; a wait suspends it', () => {
  let now = 0;
  const { timers, pending } = manualTimers();
  const deadline = new RunDeadline({ idleTimeoutMs: 50, now: () => now, timers });
  const first = [...pending.keys()];
  deadline.progress();
  assert.notDeepEqual([...pending.keys()], first, 'a new idle timer replaced the old one');
  const end = deadline.beginExternalWait();
  assert.equal(pending.size, 0);
  end();
  assert.equal(pending.size, 1);
  [...pending.values()][0]!.callback();
  assert.ok(RunDeadline.isTimeout(deadline.signal.reason) && deadline.signal.reason.which === 'idle');
});

test('the caller signal aborts the run, and the reason tells a cancel from a timeout', () => {
  const controller = new AbortController();
  const deadline = new RunDeadline({ signal: controller.signal });
  controller.abort(new Error('user cancelled'));
  assert.equal(deadline.signal.aborted, true);
  assert.equal(RunDeadline.isTimeout(deadline.signal.reason), false);
  deadline.dispose();
});
