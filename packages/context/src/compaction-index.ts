import { sharedPrefixLength } from './shared-prefix.js';
import { forEachUnitSpan } from './history-units.js';
import type { CanonicalHistory } from './messages.js';
import { isVerbatimSigned } from './signed-reasoning.js';
import type { TokenEstimator } from './token-estimator.js';

/** One unit by its place in the history: no copies of its messages. */
export interface IndexedUnit {
  readonly start: number;
  readonly end: number;
  /** A call of the unit still has no result. */
  readonly open: boolean;
}

/**
 * What a compaction under token pressure needs of one context's history,
 * kept between turns so a pass costs what changed: the units by position,
 * prefix sums of the message counts, the steps with signed reasoning, and
 * the stored results whose projection may still change. A result visited
 * once by a pass under pressure is settled for good with the same counter:
 * it had no smaller preview, its preview did not pay (the verdict depends
 * only on the message and the counter), or it was projected (its preview is
 * masked and has none). The index follows the compaction's output; a history
 * that differs from it is taken in from its first changed unit. A cache
 * only: a fresh index walks the whole history once and decides the same.
 */
export class CompactionIndex {
  private indexed: CanonicalHistory = [];
  readonly units: IndexedUnit[] = [];
  /** `prefixTokens[i]` is the tokens of `history[0..i-1]` by the counter. */
  private readonly prefixTokens: number[] = [0];
  /** Ascending indexes of the units whose first message carries signed reasoning that can go verbatim. */
  private readonly signed: number[] = [];
  /** Ascending positions of the tool results a pass under pressure has not settled yet. */
  pending: number[] = [];

  constructor(readonly counter: TokenEstimator) {}

  get history(): CanonicalHistory {
    return this.indexed;
  }

  /** Takes in `history`, from the first unit that differs from the indexed one (the last unit always: it may grow). */
  sync(history: CanonicalHistory): void {
    const shared = Math.min(sharedPrefixLength(this.indexed, history), this.prefixTokens.length - 1);
    let from = this.units.length;
    while (from > 0 && this.units[from - 1]!.end >= shared) from -= 1;
    const boundary = from > 0 ? this.units[from - 1]!.end : 0;
    this.units.length = from;
    this.prefixTokens.length = boundary + 1;
    while (this.signed.length > 0 && this.signed.at(-1)! >= from) this.signed.pop();
    while (this.pending.length > 0 && this.pending.at(-1)! >= boundary) this.pending.pop();
    for (let position = boundary; position < history.length; position += 1) {
      const message = history[position]!;
      this.prefixTokens.push(this.prefixTokens[position]! + this.counter.countMessage(message));
      if (message.role === 'tool') this.pending.push(position);
    }
    forEachUnitSpan(history, boundary, (start, end, open) => {
      if (isVerbatimSigned(history[start]!)) this.signed.push(this.units.length);
      this.units.push({ start, end, open });
    });
    this.indexed = history;
  }

  /**
   * Follows a projection: `history` is the indexed one with the results at
   * `replaced` (ascending) swapped for their previews, the units unchanged;
   * `pending` the results still unsettled.
   */
  replace(history: CanonicalHistory, replaced: readonly number[], pending: number[]): void {
    this.pending = pending;
    const first = replaced[0];
    if (first !== undefined) {
      // Only the replaced messages are counted: every other one is the same object at the same place, its count kept.
      const sums = this.prefixTokens;
      let delta = 0;
      let next = 0;
      for (let position = first; position < history.length; position += 1) {
        if (position === replaced[next]) {
          next += 1;
          const oldCost = sums[position + 1]! - (sums[position]! - delta);
          delta += this.counter.countMessage(history[position]!) - oldCost;
        }
        sums[position + 1]! += delta;
      }
    }
    this.indexed = history;
  }

  /** Tokens of the whole indexed history. */
  tokens(): number {
    return this.prefixTokens[this.indexed.length]!;
  }

  /** Tokens of one unit. */
  unitTokens(unit: number): number {
    const { start, end } = this.units[unit]!;
    return this.prefixTokens[end]! - this.prefixTokens[start]!;
  }

  /** The latest unit with signed reasoning that can go verbatim, or -1. */
  latestSigned(): number {
    return this.signed.at(-1) ?? -1;
  }

  /** The unit holding the message at `position` (binary search: units are in order). */
  unitAt(position: number): number {
    let low = 0;
    let high = this.units.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.units[middle]!.start <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
