import { checkCanonicalHistory, checkCanonicalMessage } from './canonical-history-check.js';
import type { CanonicalHistory, CanonicalMessage } from './messages.js';
import { lastPlanCall } from './plan-progress.js';
import { isSignedAssistant } from './signed-reasoning.js';
import { identicalPrefixLength, recordSharedPrefix, roomyCopy, sharedPrefixLength } from './shared-prefix.js';
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
  /** The list `check` last returned: grown in place while the caller's history only appends. */
  private checked: CanonicalMessage[] = [];
  /** The assistant messages with signed reasoning a checked history held, for the signed-reasoning rule. */
  private readonly signed = new WeakSet<CanonicalMessage>();
  /** The latest plan call of the checked history (`null`: none). */
  private planCall: { readonly index: number; readonly id: string } | null = null;
  private composed: readonly CanonicalMessage[] = [];
  /**
   * Per counter: `sums[i]` is the tokens of `composed[0..i-1]`, for `i < valid`. The array is overwritten in
   * place, never shortened: shortening it would reallocate it, a copy of the whole history every turn. Held
   * weakly by counter: a caller that makes a counter per call (trimHistory's `estimator`) leaves no sums behind.
   */
  private readonly prefixTokens = new WeakMap<TokenEstimator, { readonly sums: number[]; valid: number; of: readonly CanonicalMessage[] }>();
  /** The composed messages from `recentFrom` to `recentTo`, for `composedMessage`: the window's suffix, looked up without a set of the whole history. */
  private readonly recent = new Set<CanonicalMessage>();
  private recentFrom = 0;
  private recentTo = 0;

  /**
   * The turn's own list of the caller's history, checked as `checkCanonicalHistory` does: one walk finds where it
   * first differs from last turn's list, and only the messages from there are checked. A history that only appended
   * to last turn's is appended to that same list in place (a turn costs the walk and what was appended, not a copy);
   * any other change makes a new list. So a list this memory returned only ever grows at its end: what a stage kept
   * of it stays as it was. The caller may change its array in place after the turn; no caller holds the memory's list.
   */
  check(history: unknown): CanonicalHistory {
    if (!Array.isArray(history)) return checkCanonicalHistory(history);
    const given = history as CanonicalMessage[];
    const previous = this.checked;
    // Walked without recording a fact: the caller's array may change after the turn, and a fact must stay true.
    const shared = identicalPrefixLength(previous, given, 0);
    for (let index = shared; index < given.length; index += 1) {
      checkCanonicalMessage(given[index], `history[${index}]`, { remember: false });
      if (isSignedAssistant(given[index]!)) this.signed.add(given[index]!);
    }
    let own = previous;
    if (shared === previous.length) for (let index = shared; index < given.length; index += 1) own.push(given[index]!);
    else recordSharedPrefix(previous, (own = roomyCopy(given)), shared);
    this.checked = own;
    // The latest plan call, looked for only among the messages that changed unless it was among them.
    const stillValid = this.planCall === null || this.planCall.index < shared;
    this.planCall = (stillValid ? lastPlanCall(own, shared) ?? this.planCall : lastPlanCall(own)) ?? null;
    return own;
  }

  /**
   * Takes a turn's compacted history as the list last checked: the caller
   * passes it back with what arrived appended, so the next check walks it
   * and appends to it in place, instead of copying it and checking again
   * what the compactor changed. Its changed messages are checked here, once;
   * a list that fails the check, or cannot grow (frozen), is not taken.
   */
  adopt(history: CanonicalHistory): void {
    if (!Object.isExtensible(history)) return;
    const shared = sharedPrefixLength(this.checked, history);
    try {
      for (let index = shared; index < history.length; index += 1) checkCanonicalMessage(history[index], `history[${index}]`, { remember: false });
    } catch {
      return;
    }
    // Compaction keeps assistant messages as they are: the signed ones are known already.
    const stillValid = this.planCall === null || this.planCall.index < shared;
    this.planCall = (stillValid ? lastPlanCall(history, shared) ?? this.planCall : lastPlanCall(history)) ?? null;
    this.checked = history as CanonicalMessage[];
  }

  /** The latest `update_plan` call of the history last checked (`null`: none), for the trace's plan progress. */
  latestPlanCall(): { readonly index: number; readonly id: string } | null {
    return this.planCall;
  }

  /** Tokens of the composed history, counted only from the first message that differs from last turn's. */
  historyTokens(composed: readonly CanonicalMessage[], counter: TokenEstimator): number {
    return this.historyTokenSums(composed, counter)[composed.length]!;
  }

  /**
   * The composed history's prefix sums by `counter`, as `historyTokens`
   * keeps them: entry `i` is the tokens of `composed[0..i-1]`, for `i` up to
   * `composed.length` (entries past it are stale). Valid until the next call.
   */
  historyTokenSums(composed: readonly CanonicalMessage[], counter: TokenEstimator): readonly number[] {
    this.observe(composed);
    let prefix = this.prefixTokens.get(counter);
    if (!prefix) this.prefixTokens.set(counter, (prefix = { sums: [0], valid: 1, of: composed }));
    if (prefix.of === composed && prefix.valid > composed.length) return prefix.sums;
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
    return sums;
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
