import { timeFadedScore } from './activation.js';
import type { ContextBlock } from './context-block.js';

/** Slots before the first growth; each growth doubles. */
const INITIAL_CAPACITY = 64;

/**
 * The numbers a resolve reads and writes for every block, in typed arrays
 * indexed by a slot, beside each slot's block and sequence. A resolve over
 * 10,000 blocks then reads a few compact arrays in walk order instead of
 * opening 10,000 objects (and the boxed numbers they point to) scattered
 * over the heap. The slot of a removed block is reused by a later one.
 *
 * The arrays are replaced when they grow: read them again after `allocate`.
 */
export class BlockStates {
  scores = new Float64Array(INITIAL_CAPACITY);
  touchedAtMs = new Float64Array(INITIAL_CAPACITY);
  timeFadeFactors = new Float64Array(INITIAL_CAPACITY);
  activateFactors = new Float64Array(INITIAL_CAPACITY);
  /** The block's set of focused domains, as an index into the workspace's distinct sets. */
  domainSets = new Uint32Array(INITIAL_CAPACITY);
  sequences = new Float64Array(INITIAL_CAPACITY);
  /** `undefined` at a free slot. */
  readonly blocks: (ContextBlock | undefined)[] = [];
  #free: number[] = [];

  /** Stores a block's state in a free slot and returns the slot. */
  allocate(fields: { block: ContextBlock; sequence: number; domainSet: number; score: number; touchedAtMs: number }): number {
    const slot = this.#free.pop() ?? this.blocks.length;
    if (slot >= this.scores.length) this.#grow();
    this.blocks[slot] = fields.block;
    this.sequences[slot] = fields.sequence;
    this.domainSets[slot] = fields.domainSet;
    this.timeFadeFactors[slot] = fields.block.timeFadeFactor;
    this.activateFactors[slot] = fields.block.activateFactor;
    this.scores[slot] = fields.score;
    this.touchedAtMs[slot] = fields.touchedAtMs;
    return slot;
  }

  /** The slot's score as of `now`, time fade included; changes nothing. */
  scoreAt(slot: number, now: number): number {
    return timeFadedScore(this.scores[slot]!, now - this.touchedAtMs[slot]!, this.timeFadeFactors[slot]!);
  }

  /**
   * Charges the slot's time fade up to `now` and returns the score. A clock
   * that went backwards charges nothing and keeps the later mark.
   */
  fade(slot: number, now: number): number {
    const score = this.scoreAt(slot, now);
    this.scores[slot] = score;
    this.touchedAtMs[slot] = Math.max(this.touchedAtMs[slot]!, now);
    return score;
  }

  release(slot: number): void {
    this.blocks[slot] = undefined;
    this.#free.push(slot);
  }

  /** Doubles every array, keeping what they hold. */
  #grow(): void {
    const capacity = this.scores.length * 2;
    this.scores = grownFloat64(this.scores, capacity);
    this.touchedAtMs = grownFloat64(this.touchedAtMs, capacity);
    this.timeFadeFactors = grownFloat64(this.timeFadeFactors, capacity);
    this.activateFactors = grownFloat64(this.activateFactors, capacity);
    this.sequences = grownFloat64(this.sequences, capacity);
    const domainSets = new Uint32Array(capacity);
    domainSets.set(this.domainSets);
    this.domainSets = domainSets;
  }
}

function grownFloat64(values: Float64Array, capacity: number): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(capacity);
  grown.set(values);
  return grown;
}

