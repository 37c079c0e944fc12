import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunDeadline } from './run-deadline.js';
import { manualTimers } from '@strata/testing';

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

test('a run carried across executions: the deadline counts on from the active time used before, and the reading excludes waits', () => {
  let now = 0;
  const { timers, pending } = manualTimers();
  const deadline = new RunDeadline({ runTimeoutMs: 1_000, usedMs: 700, now: () => now, timers });
  assert.deepEqual([...pending.values()].map((timer) => timer.delayMs), [300], 'only the unused 300 ms are left');
  now = 100;
  assert.equal(deadline.activeMs(), 800);
  const end = deadline.beginExternalWait();
  now = 50_000;
  assert.equal(deadline.activeMs(), 800, 'a wait adds nothing');
  end();
  now = 50_150;
  deadline.dispose();
  now = 90_000;
  assert.equal(deadline.activeMs(), 950, 'disposed: the reading stops');
  assert.equal(deadline.signal.aborted, false);
});

test('advanceTo moves the clock forward to a replayed checkpoint, never back; at the deadline it fires at once', () => {
  let now = 0;
  const { timers, pending } = manualTimers();
  const deadline = new RunDeadline({ runTimeoutMs: 1_000, usedMs: 200, now: () => now, timers });
  deadline.advanceTo(100);
  assert.equal(deadline.activeMs(), 200, 'an older checkpoint does not move it back');
  deadline.advanceTo(600);
  assert.equal(deadline.activeMs(), 600);
  assert.deepEqual([...pending.values()].map((timer) => timer.delayMs), [400], 'the deadline timer rescheduled to the time left');
  now = 50;
  deadline.advanceTo(1_000);
  assert.equal(deadline.signal.aborted, true, 'a checkpoint at the deadline times the run out without waiting for a timer');
  assert.ok(RunDeadline.isTimeout(deadline.signal.reason) && deadline.signal.reason.which === 'run');
  assert.equal(pending.size, 0);
});

test('the active time is measured without a deadline too (for a durable checkpoint)', () => {
  let now = 10;
  const { timers, pending } = manualTimers();
  const deadline = new RunDeadline({ usedMs: 5, now: () => now, timers });
  now = 40;
  assert.equal(deadline.activeMs(), 35);
  assert.equal(pending.size, 0, 'no deadline, no timer');
  deadline.dispose();
});
