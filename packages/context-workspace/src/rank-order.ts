/**
 * Orders ranked items by (weight descending, score descending, position
 * ascending) without comparator calls: each item gets one 32-bit key of its
 * weight and quantized score, and a stable least-significant-digit radix sort
 * of the positions by that key (three passes of 11 bits) leaves equal keys in
 * position order. Scores closer than the quantum can tie in the key; a final
 * insertion pass with the exact comparison puts them right, so the order is
 * always exact and the pass is linear when (as practically always) nothing is
 * out of place. Hand-written: no well-kept package radix-sorts typed arrays,
 * and the engine's native sort of a packed Float64Array key took twice as long.
 */

/** Scores lie in [0, 100]: below 2^7. */
const SCORE_BITS_ABOVE_POINT = 7;
/** Below this many fractional bits the quantum is too coarse to be worth it: fall back to a comparator sort. */
const MIN_FRACTION_BITS = 12;
const KEY_BITS = 32;
/** 11-bit digits: three passes over 32 bits, with a count table (2,048 entries) small beside 10,000 items. */
const DIGIT_BITS = 11;
const DIGIT_VALUES = 2 ** DIGIT_BITS;
const DIGIT_MASK = DIGIT_VALUES - 1;

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
export function rankOrder(input: RankOrderInput): Uint32Array<ArrayBuffer> {
  const { count, weights, scores } = input;
  const fractionBits = KEY_BITS - bitsFor(input.maxWeight + 1) - SCORE_BITS_ABOVE_POINT;
  if (fractionBits < MIN_FRACTION_BITS) {
    const order = new Uint32Array(count);
    for (let position = 0; position < count; position += 1) order[position] = position;
    return order.sort((left, right) => compareExact(input, left, right));
  }
  const scoreScale = 2 ** fractionBits;
  const scoreRange = 2 ** (SCORE_BITS_ABOVE_POINT + fractionBits);
  const keys = new Uint32Array(count);
  for (let position = 0; position < count; position += 1) {
    // Descending weight and score become ascending complements.
    const weightPart = input.maxWeight - weights[position]!;
    const scorePart = scoreRange - 1 - Math.floor(scores[position]! * scoreScale);
    keys[position] = weightPart * scoreRange + scorePart;
  }
  const order = sortPositionsByKey(keys);
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

/** Positions `0..keys.length-1` by key ascending, equal keys in position order (a stable LSD radix sort). */
function sortPositionsByKey(positionKeys: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const count = positionKeys.length;
  let keys = positionKeys;
  let order = new Uint32Array(count);
  for (let position = 0; position < count; position += 1) order[position] = position;
  let nextKeys = new Uint32Array(count);
  let nextOrder = new Uint32Array(count);
  const starts = new Uint32Array(DIGIT_VALUES);
  for (let shift = 0; shift < KEY_BITS; shift += DIGIT_BITS) {
    starts.fill(0);
    for (let index = 0; index < count; index += 1) {
      const digit = (keys[index]! >>> shift) & DIGIT_MASK;
      starts[digit] = starts[digit]! + 1;
    }
    // Every key has the same digit here: this pass would move nothing.
    if (count === 0 || starts[(keys[0]! >>> shift) & DIGIT_MASK] === count) continue;
    let start = 0;
    for (let digit = 0; digit < DIGIT_VALUES; digit += 1) {
      const size = starts[digit]!;
      starts[digit] = start;
      start += size;
    }
    for (let index = 0; index < count; index += 1) {
      const key = keys[index]!;
      const digit = (key >>> shift) & DIGIT_MASK;
      const place = starts[digit]!;
      starts[digit] = place + 1;
      nextKeys[place] = key;
      nextOrder[place] = order[index]!;
    }
    [keys, nextKeys] = [nextKeys, keys];
    [order, nextOrder] = [nextOrder, order];
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
