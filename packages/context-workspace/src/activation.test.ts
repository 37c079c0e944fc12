import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  activate,
  applyReplaceFade,
  applyTimeFade,
  projectionFor,
  projectionLevel,
  smallerProjection,
} from './activation.js';

test('time fade charges timeFadeFactor per minute for each elapsed second, never below 0', () => {
  assert.equal(applyTimeFade({ score: 100, elapsedMs: 30_000, timeFadeFactor: 6 }), 97);
  assert.equal(applyTimeFade({ score: 100, elapsedMs: 90_000, timeFadeFactor: 60 }), 10);
  assert.equal(applyTimeFade({ score: 100, elapsedMs: 1_500, timeFadeFactor: 120 }), 97);
  assert.equal(applyTimeFade({ score: 40, elapsedMs: 600_000, timeFadeFactor: 60 }), 0);
  assert.equal(applyTimeFade({ score: 40, elapsedMs: 600_000, timeFadeFactor: 0 }), 40);
  // A clock that went backwards is no time at all.
  assert.equal(applyTimeFade({ score: 40, elapsedMs: -60_000, timeFadeFactor: 60 }), 40);
});

test('replace fade subtracts the factor, never below 0', () => {
  assert.equal(applyReplaceFade(80, 30), 50);
  assert.equal(applyReplaceFade(20, 30), 0);
  assert.equal(applyReplaceFade(20, 0), 20);
});

test('levels: below 30 ABSTRACT, below 70 COMPACT, else FULL', () => {
  assert.equal(projectionLevel(0), 'ABSTRACT');
  assert.equal(projectionLevel(29.999), 'ABSTRACT');
  assert.equal(projectionLevel(30), 'COMPACT');
  assert.equal(projectionLevel(69.999), 'COMPACT');
  assert.equal(projectionLevel(70), 'FULL');
  assert.equal(projectionLevel(100), 'FULL');
});

test('PRIMARY adds the factor at FULL, capped at 100', () => {
  assert.equal(activate({ score: 80, exposure: 'PRIMARY', activateFactor: 10 }), 90);
  assert.equal(activate({ score: 95, exposure: 'PRIMARY', activateFactor: 10 }), 100);
});

test('PRIMARY adds 0.6 x the factor at COMPACT and may reach FULL', () => {
  assert.equal(activate({ score: 50, exposure: 'PRIMARY', activateFactor: 10 }), 56);
  assert.equal(activate({ score: 65, exposure: 'PRIMARY', activateFactor: 10 }), 71);
  assert.equal(activate({ score: 50, exposure: 'PRIMARY', activateFactor: 1000 }), 100);
});

test('PRIMARY promotes an ABSTRACT block only to COMPACT in one activation', () => {
  assert.equal(activate({ score: 20, exposure: 'PRIMARY', activateFactor: 10 }), 26);
  const promoted = activate({ score: 20, exposure: 'PRIMARY', activateFactor: 1000 });
  assert.equal(promoted, 70 - 0.000001);
  assert.equal(projectionLevel(promoted), 'COMPACT');
});

test('SECONDARY adds 0.2 x at COMPACT, 0.1 x at ABSTRACT, nothing at FULL', () => {
  assert.equal(activate({ score: 50, exposure: 'SECONDARY', activateFactor: 10 }), 52);
  assert.equal(activate({ score: 20, exposure: 'SECONDARY', activateFactor: 10 }), 21);
  assert.equal(activate({ score: 80, exposure: 'SECONDARY', activateFactor: 10 }), 80);
});

test('SECONDARY keeps a block in its level even with a very large factor', () => {
  const abstract = activate({ score: 20, exposure: 'SECONDARY', activateFactor: 1e9 });
  assert.equal(abstract, 30 - 0.000001);
  assert.equal(projectionLevel(abstract), 'ABSTRACT');
  const compact = activate({ score: 50, exposure: 'SECONDARY', activateFactor: 1e9 });
  assert.equal(compact, 70 - 0.000001);
  assert.equal(projectionLevel(compact), 'COMPACT');
});

test('an activation never lowers a score already within epsilon of the next threshold', () => {
  assert.equal(activate({ score: 69.9999995, exposure: 'SECONDARY', activateFactor: 10 }), 69.9999995);
  assert.equal(activate({ score: 29.9999995, exposure: 'SECONDARY', activateFactor: 10 }), 29.9999995);
});

test('projection: PRIMARY full at FULL else compact; SECONDARY abstract at ABSTRACT else compact', () => {
  assert.equal(projectionFor('FULL', 'PRIMARY'), 'full');
  assert.equal(projectionFor('COMPACT', 'PRIMARY'), 'compact');
  assert.equal(projectionFor('ABSTRACT', 'PRIMARY'), 'compact');
  assert.equal(projectionFor('FULL', 'SECONDARY'), 'compact');
  assert.equal(projectionFor('COMPACT', 'SECONDARY'), 'compact');
  assert.equal(projectionFor('ABSTRACT', 'SECONDARY'), 'abstract');
});

test('smaller projections step full, compact, abstract, then stop', () => {
  assert.equal(smallerProjection('full'), 'compact');
  assert.equal(smallerProjection('compact'), 'abstract');
  assert.equal(smallerProjection('abstract'), undefined);
});
