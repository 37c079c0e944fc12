import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { superviseWorkers, type SupervisorEvent } from './supervise-workers.js';

test('supervisor: a killed worker is started again under its slot; stop ends every worker and restarts none', async () => {
  const events: SupervisorEvent[] = [];
  const restarts: (() => void)[] = [];
  const spawned: number[] = [];
  const supervisor = superviseWorkers({
    workers: 3,
    spawn: (slot) => {
      spawned.push(slot);
      return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    },
    // Restarts run when the test says, not after a real delay.
    setTimeout: (callback) => restarts.push(callback),
    onEvent: (event) => events.push(event),
  });
  try {
    assert.deepEqual(spawned, [1, 2, 3]);
    const victim = supervisor.workers.get(2)!;
    victim.kill('SIGKILL');
    await once(victim, 'exit');
    assert.deepEqual(events.at(-1), { type: 'worker-exited', slot: 2, code: null, signal: 'SIGKILL', restarting: true });
    assert.equal(supervisor.workers.has(2), false);
    assert.equal(restarts.length, 1);
    restarts.shift()!();
    assert.deepEqual(spawned, [1, 2, 3, 2]);
    assert.notEqual(supervisor.workers.get(2)!.pid, victim.pid);
  } finally {
    await supervisor.stop();
  }
  assert.equal(supervisor.workers.size, 0);
  assert.ok(events.filter((event) => event.type === 'worker-exited').slice(1).every((event) => event.type === 'worker-exited' && !event.restarting));
  for (const restart of restarts) restart();
  assert.deepEqual(spawned, [1, 2, 3, 2]);
});
