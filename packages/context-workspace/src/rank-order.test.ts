import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { rankOrder } from './rank-order.js';

function exactOrder(weights: readonly number[], scores: readonly number[]): number[] {
  return weights.map((_, position) => position).sort((left, right) => weights[right]! - weights[left]! || scores[right]! - scores[left]! || left - right);
}

// Scores that collide in the packed key's quantum: 70 and its neighbours one ulp and one epsilon away.
const nearScores = fc.constantFrom(70, 70 - 1e-6, 70 - 2 ** -40, 70 + 2 ** -40, 69.999999, 100, 0.5, 30 - 1e-12);
const score = fc.oneof(nearScores, fc.double({ min: 0, max: 100, noNaN: true }));

test('rank order equals the exact comparison: weight, score descending, then position', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 15 }), score), { maxLength: 300 }), (items) => {
      const weights = items.map(([weight]) => weight);
      const scores = items.map(([, value]) => value);
      const maxWeight = Math.max(0, ...weights);
      assert.deepEqual([...rankOrder({ count: items.length, weights, scores, maxWeight })], exactOrder(weights, scores));
    }),
  );
});

test('only the first count positions are ranked; huge weights fall back to the comparator sort', () => {
  const weights = [1, 3, 3, 9];
  const scores = [50, 50, 60, 100];
  assert.deepEqual([...rankOrder({ count: 3, weights, scores, maxWeight: 3 })], [2, 1, 0]);
  const wide = [2 ** 30, 1, 2 ** 30];
  assert.deepEqual([...rankOrder({ count: 3, weights: wide, scores: [1, 100, 2], maxWeight: 2 ** 30 })], [2, 0, 1]);
});

test('thousands of items, keys spread over every digit or sharing their upper digits, rank exactly', () => {
  const count = 5_000;
  const spread = Array.from({ length: count }, (_, position) => ((position * 2_654_435_761) % 4_294_967_296) / 42_949_672.96);
  const weights = Array.from({ length: count }, (_, position) => 1 + (position % 9));
  assert.deepEqual([...rankOrder({ count, weights, scores: spread, maxWeight: 9 })], exactOrder(weights, spread));
  // One weight and scores within one unit: the upper digits are all equal and their passes move nothing.
  const close = spread.map((value) => 50 + value / 100);
  const ones = weights.map(() => 1);
  assert.deepEqual([...rankOrder({ count, weights: ones, scores: close, maxWeight: 1 })], exactOrder(ones, close));
});
