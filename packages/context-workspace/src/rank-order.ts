/**
 * Orders ranked items by (weight descending, score descending, position
 * ascending) with one numeric key each and the engine's native sort of a
 * Float64Array (no comparator calls): the three fields are packed into one
 * integer below 2^53, the score quantized. Scores closer than the quantum can
 * tie in the key; a final insertion pass with the exact comparison puts them
 * right, so the order is always exact and the pass is linear when (as
 * practically always) nothing is out of place.
 */

/** Scores lie in [0, 100]: below 2^7. */
const SCORE_BITS_ABOVE_POINT = 7;
/** Below this many fractional bits the quantum is too coarse to be worth it: fall back to a comparator sort. */
const MIN_FRACTION_BITS = 12;
const SAFE_BITS = 53;

export interface RankOrderInput {
  /** How many items: positions `0..count-1` of `weights` and `scores` (the arrays may be longer). */
  readonly count: number;
  /** Non-negative integers, at most `maxWeight`. */
  readonly weights: ArrayLike<number>;
  /** In [0, 100]. */
  readonly scores: ArrayLike<number>;
  readonly maxWeight: number;
}

/** Positions `0..count-1` in rank order. */
export function rankOrder(input: RankOrderInput): Uint32Array {
  const { count, weights, scores } = input;
  const order = new Uint32Array(count);
  const positionBits = bitsFor(count);
  const weightBits = bitsFor(input.maxWeight + 1);
  const fractionBits = SAFE_BITS - positionBits - weightBits - SCORE_BITS_ABOVE_POINT;
  if (fractionBits < MIN_FRACTION_BITS) {
    for (let position = 0; position < count; position += 1) order[position] = position;
    return order.sort((left, right) => compareExact(input, left, right));
  }
  const scoreScale = 2 ** fractionBits;
  const scoreRange = 2 ** (SCORE_BITS_ABOVE_POINT + fractionBits);
  const positionRange = 2 ** positionBits;
  const keys = new Float64Array(count);
  for (let position = 0; position < count; position += 1) {
    // Descending weight and score become ascending complements.
    const weightPart = input.maxWeight - weights[position]!;
    const scorePart = scoreRange - 1 - Math.floor(scores[position]! * scoreScale);
    keys[position] = (weightPart * scoreRange + scorePart) * positionRange + position;
  }
  keys.sort();
  for (let index = 0; index < count; index += 1) {
    const key = keys[index]!;
    order[index] = key - Math.floor(key / positionRange) * positionRange;
  }
  // Exactness: items whose scores fell into one quantum are compared in full.
  for (let index = 1; index < count; index += 1) {
    const item = order[index]!;
    let place = index;
    while (place > 0 && compareExact(input, order[place - 1]!, item) > 0) {
      order[place] = order[place - 1]!;
      place -= 1;
    }
    order[place] = item;
  }
  return order;
}

function compareExact(input: RankOrderInput, left: number, right: number): number {
  return input.weights[right]! - input.weights[left]! || input.scores[right]! - input.scores[left]! || left - right;
}

/** Bits needed to hold integers below `limit` (at least 1). */
function bitsFor(limit: number): number {
  return Math.max(1, Math.ceil(Math.log2(Math.max(2, limit))));
}
