import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextBlock, type ContextBlock } from './context-block.js';
import { compareTraceOrder, TraceJournal, tracedStates, type TracedState } from './trace-journal.js';

function block(blockName: string, source = 'main'): ContextBlock {
  return contextBlock({ blockName, source, focusedOn: ['MEMORY'], blockContent: blockName, replaceFadeFactor: 10, timeFadeFactor: 0, activateFactor: 0 });
}

/** A tiny workspace model: the journal's source of truth. */
function model() {
  const states = new Map<number, TracedState>();
  let rebuilt = 0;
  const current = () => {
    const list = [...states.values()].sort(compareTraceOrder);
    rebuilt += list.length;
    return list;
  };
  return { states, current, rebuiltStates: () => rebuilt };
}

test('a capture lists the blocks as of its moment, whatever changes after', () => {
  const journal = new TraceJournal();
  const { states, current } = model();
  const set = (state: TracedState) => {
    states.set(state.sequence, state);
    journal.set(state);
  };
  set({ sequence: 0, block: block('plan'), score: 100, touchedAtMs: 0 });
  const first = journal.capture(current);
  set({ sequence: 1, block: block('memory'), score: 100, touchedAtMs: 5 });
  set({ sequence: 0, block: block('plan'), score: 90, touchedAtMs: 5 });
  const second = journal.capture(current);
  states.delete(0);
  journal.removed(0);
  set({ sequence: 2, block: block('aim'), score: 100, touchedAtMs: 9 });
  const third = journal.capture(current);
  journal.invalidate();
  states.clear();
  const fourth = journal.capture(current);

  const view = (captured: ReturnType<TraceJournal['capture']>) => tracedStates(captured).map((state) => `${state.block.blockName}:${state.score}`);
  assert.deepEqual(view(first), ['plan:100']);
  assert.deepEqual(view(second), ['memory:100', 'plan:90']);
  assert.deepEqual(view(third), ['aim:100', 'memory:100']);
  assert.deepEqual(view(fourth), []);
});

test('captures rebuild the base rarely: n registers with a capture each build O(n) states in all', () => {
  const journal = new TraceJournal();
  const { states, current, rebuiltStates } = model();
  const count = 5_000;
  for (let sequence = 0; sequence < count; sequence += 1) {
    const state = { sequence, block: block(`b${sequence % 97}`, `s${sequence}`), score: 100, touchedAtMs: sequence };
    states.set(sequence, state);
    journal.set(state);
    journal.capture(current);
  }
  // Each rebuild of n states follows at least n changes: at most about 2n states in all, where rebuilding per event would build n²/2.
  assert.ok(rebuiltStates() <= 3 * count, `rebuilt ${rebuiltStates()} states for ${count} captures`);
});

test('after an invalidation nothing is recorded until the next capture rebuilds', () => {
  const journal = new TraceJournal();
  const { states, current, rebuiltStates } = model();
  const state = { sequence: 0, block: block('plan'), score: 100, touchedAtMs: 0 };
  states.set(0, state);
  journal.invalidate();
  journal.set(state);
  const captured = journal.capture(current);
  assert.equal(captured.changes, undefined);
  assert.equal(rebuiltStates(), 1);
  assert.deepEqual(tracedStates(captured), [state]);
});
