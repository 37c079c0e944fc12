import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockStates } from './block-states.js';
import { contextBlock } from './context-block.js';

const block = (index: number) =>
  contextBlock({ blockName: `note${index}`, source: 'test', focusedOn: ['ACTION'], blockContent: `${index}`, replaceFadeFactor: 10, timeFadeFactor: 6, activateFactor: 3 });

test('slots grow past the first capacity keeping every state, and a released slot is reused', () => {
  const states = new BlockStates();
  const slots = Array.from({ length: 200 }, (_, index) => states.allocate({ block: block(index), sequence: index, domainSet: index % 3, score: index / 2, touchedAtMs: 1_000 + index }));
  assert.deepEqual(slots, Array.from({ length: 200 }, (_, index) => index));
  slots.forEach((slot, index) => {
    assert.equal(states.blocks[slot]?.blockName, `note${index}`);
    assert.equal(states.sequences[slot], index);
    assert.equal(states.domainSets[slot], index % 3);
    assert.equal(states.scores[slot], index / 2);
    assert.equal(states.touchedAtMs[slot], 1_000 + index);
    assert.equal(states.timeFadeFactors[slot], 6);
    assert.equal(states.activateFactors[slot], 3);
  });
  states.release(7);
  assert.equal(states.blocks[7], undefined);
  assert.equal(states.allocate({ block: block(500), sequence: 500, domainSet: 0, score: 100, touchedAtMs: 0 }), 7);
  assert.equal(states.sequences[7], 500);
  assert.equal(states.allocate({ block: block(501), sequence: 501, domainSet: 0, score: 100, touchedAtMs: 0 }), 200);
});

test('fade charges time since the mark and moves it; a clock that went backwards charges nothing and keeps the later mark', () => {
  const states = new BlockStates();
  const slot = states.allocate({ block: block(1), sequence: 1, domainSet: 0, score: 50, touchedAtMs: 10_000 });
  // 6 per minute: 10 s cost 1.
  assert.equal(states.scoreAt(slot, 20_000), 49);
  assert.equal(states.scores[slot], 50, 'scoreAt changes nothing');
  assert.equal(states.fade(slot, 20_000), 49);
  assert.equal(states.touchedAtMs[slot], 20_000);
  assert.equal(states.fade(slot, 5_000), 49);
  assert.equal(states.touchedAtMs[slot], 20_000);
});
