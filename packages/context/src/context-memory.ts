import { checkCanonicalHistory, checkCanonicalMessage } from './canonical-history-check.js';
import type { CanonicalHistory, CanonicalMessage } from './messages.js';
import { lastPlanCall } from './plan-progress.js';
import { isSignedAssistant } from './signed-reasoning.js';
import { sharedPrefixLength } from './shared-prefix.js';
import type { TokenEstimator } from './token-estimator.js';

/** Messages `ContextMemory.composedMessage` indexes at least, from the end of the composed history, when it starts looking. */
const RECENT_LOOKUP_MESSAGES = 64;

/**
 * What the assembler caches of one context between turns, so that a turn
 * over an append-only history costs what was appended: the canonical history
 * it last checked, the composed history it last counted (with prefix sums per
 * counter), and which stored-output references read back. It keeps a count
 * per composed message and the arrays themselves, nothing per message beside
 * them (its only set holds the assistant messages with signed reasoning).
 * A cache only: everything is recomputed from the first message that
 * differs, and a fresh memory gives the same bytes. What decides the input
 * between turns is the context state (`ContextState`), which the caller
 * passes back.
 */
export class ContextMemory {
  /** Stored-output references already confirmed to read back from this context's store. */
  readonly readableOutputRefs = new Set<string>();
  private checked: CanonicalHistory = [];
  /** The assistant messages with signed reasoning a checked history held, for the signed-reasoning rule. */
  private readonly signed = new WeakSet<CanonicalMessage>();
  /** The latest plan call of the checked history (`null`: none). */
  private planCall: { readonly index: number; readonly id: string } | null = null;
  private composed: readonly CanonicalMessage[] = [];
  /**
   * Per counter: `sums[i]` is the tokens of `composed[0..i-1]`, for `i < valid`. The array is overwritten in
   * place, never shortened: shortening it would reallocate it, a copy of the whole history every turn.
   */
  private readonly prefixTokens = new Map<TokenEstimator, { readonly sums: number[]; valid: number; of: readonly CanonicalMessage[] }>();
  /** The composed messages from `recentFrom` to `recentTo`, for `composedMessage`: the window's suffix, looked up without a set of the whole history. */
  private readonly recent = new Set<CanonicalMessage>();
  private recentFrom = 0;
  private recentTo = 0;

  /**
   * The turn's own copy of the caller's history, checked as `checkCanonicalHistory` does: one slice, then one walk
   * that finds where it first differs from last turn's copy and checks only the messages from there. The caller may
   * change its array in place after the turn; the copy is the memory's and no caller holds it.
   */
  check(history: unknown): CanonicalHistory {
    if (!Array.isArray(history)) return checkCanonicalHistory(history);
    const copy = history.slice() as CanonicalMessage[];
    const previous = this.checked;
    // Walked once (the copy is new: no fact links it yet), and recorded for the stages after.
    const shared = sharedPrefixLength(previous, copy);
    for (let index = shared; index < copy.length; index += 1) {
      checkCanonicalMessage(copy[index], `history[${index}]`, { remember: false });
      if (isSignedAssistant(copy[index]!)) this.signed.add(copy[index]!);
    }
    this.checked = copy;
    // The latest plan call, looked for only among the messages that changed unless it was among them.
    const stillValid = this.planCall === null || this.planCall.index < shared;
    this.planCall = (stillValid ? lastPlanCall(copy, shared) ?? this.planCall : lastPlanCall(copy)) ?? null;
    return copy;
  }

  /** The latest `update_plan` call of the history last checked (`null`: none), for the trace's plan progress. */
  latestPlanCall(): { readonly index: number; readonly id: string } | null {
    return this.planCall;
  }

  /** Tokens of the composed history, counted only from the first message that differs from last turn's. */
  historyTokens(composed: readonly CanonicalMessage[], counter: TokenEstimator): number {
    this.observe(composed);
    let prefix = this.prefixTokens.get(counter);
    if (!prefix) this.prefixTokens.set(counter, (prefix = { sums: [0], valid: 1, of: composed }));
    if (prefix.of === composed && prefix.valid > composed.length) return prefix.sums[composed.length]!;
    const { sums } = prefix;
    const before = prefix.of;
    const beforeValid = prefix.of === composed ? prefix.valid : Math.min(prefix.valid, before.length + 1);
    // From the first message that differs from what the sums counted; after it, a message that is the same object at
    // the same place keeps its count (`sums` holds the old sums until overwritten: `oldAt` is the old `sums[index]`).
    const from = Math.min(prefix.valid - 1, sharedPrefixLength(before, composed));
    let oldAt = sums[from]!;
    for (let index = from; index < composed.length; index += 1) {
      const message = composed[index]!;
      const oldNext = index + 1 < beforeValid ? sums[index + 1]! : Number.NaN;
      const cost = before[index] === message && !Number.isNaN(oldNext) ? oldNext - oldAt : counter.countMessage(message);
      sums[index + 1] = sums[index]! + cost;
      oldAt = oldNext;
    }
    prefix.of = composed;
    prefix.valid = composed.length + 1;
    return sums[composed.length]!;
  }

  /** Whether a history this memory checked held this assistant message with signed reasoning (compaction keeps assistant messages as they are). */
  canonicalSigned(message: CanonicalMessage): boolean {
    return this.signed.has(message);
  }

  /**
   * Whether the composition last counted holds this message object. Looked
   * up from the end, widening by doubling: a window's messages are mostly the
   * composed history's suffix, so a turn pays for what it keeps, not for the
   * whole history (a message it does not hold costs one walk of it).
   */
  composedMessage(message: CanonicalMessage): boolean {
    const composed = this.composed;
    // The composer may have grown the same list at its end since it was taken in.
    for (; this.recentTo < composed.length; this.recentTo += 1) this.recent.add(composed[this.recentTo]!);
    while (!this.recent.has(message)) {
      if (this.recentFrom === 0) return false;
      const from = Math.max(0, this.recentFrom - Math.max(RECENT_LOOKUP_MESSAGES, composed.length - this.recentFrom));
      for (let index = from; index < this.recentFrom; index += 1) this.recent.add(composed[index]!);
      this.recentFrom = from;
    }
    return true;
  }

  /**
   * Takes in this turn's composed history: counts stay valid up to the first message that differs. The same list
   * again may have grown at its end (a composed list only grows: `ComposedMessages.history`).
   */
  private observe(composed: readonly CanonicalMessage[]): void {
    if (composed === this.composed) return;
    this.composed = composed;
    this.recent.clear();
    this.recentFrom = this.recentTo = composed.length;
  }
}
