import { checkCanonicalHistory } from './canonical-history-check.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { resolveContextBudget } from './context-configuration.js';
import { ContextMemory } from './context-memory.js';
import { chooseCounter } from './counting-policy.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { ExactTokenEstimator, hasBuiltInExactTokenizer } from './exact-token-estimator.js';
import { tokenizerFamilyOf } from './tokenizer-family.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
import { BoundedCache } from './bounded-cache.js';
import { buildHistoryUnits, isTaskAnchorCandidate } from './history-units.js';
import { DefaultContextMessageComposer } from './message-composer.js';
import type { CanonicalHistory, CanonicalMessage } from './messages.js';
import type { TokenEstimator, TokenizerFamily } from './token-estimator.js';

export interface TrimHistoryOptions {
  /** The most tokens the kept messages may use. */
  readonly maxTokens: number;
  /**
   * The model the messages go to (`gpt-4o`, `gpt-4.1`, ...) or its encoding
   * (`o200k`, `cl100k`). When its tokenizer is known, exact counts decide
   * near the budget, as they do in a turn; otherwise the conservative
   * estimate alone, which never under-counts.
   */
  readonly model?: string;
  /** The fast counter. Default: the conservative estimator for the model's family. */
  readonly estimator?: TokenEstimator;
}

/**
 * Trims a history to a token budget the way a turn's window does: newest
 * first, a tool call never split from its results, the leading system
 * messages, the latest real user request, the latest checkpoint and the
 * newest step always kept; the result is valid for every provider (orphan
 * results as data, interrupted calls answered, a user turn first). Counted
 * by the turn's counting rule: the estimate, and the model's exact
 * tokenizer once the estimate reaches the budget, then only where a count
 * can change the cut (every message kept was counted exactly). Counts are
 * kept across calls, per message, so repeated trims of a growing history
 * count what was appended; what is kept is never the caller's array (change
 * it in place between calls at will; a message itself is immutable, see
 * `CanonicalMessage`) and never changes an answer: a trim
 * gives what a fresh trim of the same messages gives. Any value in: a malformed
 * history is one `ContextInputError` naming the message and field; what
 * must be kept not fitting is a `ContextBudgetError`.
 */
export function trimHistory(messages: unknown, options: TrimHistoryOptions): CanonicalMessage[] {
  // The caller's array stays theirs to change after the call (push onto it in place, edit it): what is kept for the next
  // call (the composer's source, the shared-prefix facts) is trimHistory's own copy, never the caller's array.
  const history: CanonicalHistory = [...checkCanonicalHistory(messages)];
  if (!Number.isInteger(options.maxTokens) || options.maxTokens < 1) {
    throw new ConfigurationError({ setting: 'maxTokens', message: `trimHistory maxTokens must be a positive integer, got ${String(options.maxTokens)}` });
  }
  const family = options.model === undefined ? 'unknown' : tokenizerFamilyOf(options.model);
  const counters = countersFor(family);
  const estimator = options.estimator ?? counters.estimator;
  const contextId = conversationKey(history);
  const composed = TRIM.composer.compose({ contextId, history, messages: [], attachments: [] }).history;
  // The estimates by place, kept per conversation as a turn keeps them: a trim of a grown history estimates what was appended.
  const sums = (contextId === undefined ? new ContextMemory() : TRIM.memories.getOrCreate(contextId, () => new ContextMemory())).historyTokenSums(composed, estimator);
  const estimated = sums[composed.length]!;
  const counter = chooseCounter({ estimator, exactEstimator: counters.exact, budget: resolveContextBudget({ inputCapTokens: options.maxTokens }), estimatedTokens: estimated });
  if (counter !== estimator) return exactNearTheCut(composed, sums, counter, options.maxTokens);
  // Everything fits by the count that decides: the window would keep it all (the composer opens it with a user turn).
  if (estimated <= options.maxTokens) return [...composed];
  return [...TRIM.window.select({ messages: composed, budgetTokens: options.maxTokens, count: countFunction(estimator), contextId, markStart: false }).messages];
}

/**
 * How far the conservative estimate may run over the exact count (1.19x at
 * the median of the shared histories' messages, 1.7x at most): a step
 * estimated at more than this many times the room left is taken not to fit,
 * and not counted exactly unless a cut keeps it (less where the history's
 * own messages show the estimate running over by less). Only the window's
 * use depends on it, never whether the result fits.
 */
const ESTIMATE_OVER_EXACT = 2;

/** The fewest exact tokens of a message whose estimate tells how far the estimate runs over (a few tokens either way make a short message's ratio meaningless). */
const RATIO_MIN_TOKENS = 32;

/** The most times a cut is made again because it kept a message counted by its estimate. */
const RECUTS = 3;

/**
 * The window over `messages` counted exactly where the count can change the
 * cut. What the window pins is counted first (the leading system messages,
 * the first and the latest real user request, the latest checkpoint); then
 * the cut is walked as the window makes it, whole steps newest first, each
 * kept when it fits in what is left and skipped when not: a step estimated
 * over what is left by more than the estimate has run over the exact count
 * on this history (at most `ESTIMATE_OVER_EXACT` times) is taken not to fit
 * and goes by its estimate, every other step is counted exactly. So the
 * messages counted exactly are the kept ones and the steps beside them that
 * might have fitted, not the history's older steps. When the cut keeps a
 * message counted by its estimate (a pinned one, or a user turn brought back
 * to open the conversation), it is counted exactly and the cut made again,
 * so every message in the result was counted exactly. After `RECUTS` such
 * rounds, every message whose estimate is within the budget is counted
 * exactly (a message over the budget alone is kept only when pinned, and the
 * cut that keeps it counts it).
 */
function exactNearTheCut(messages: readonly CanonicalMessage[], estimateSums: readonly number[], exact: TokenEstimator, maxTokens: number): CanonicalMessage[] {
  const estimateAt = (position: number) => estimateSums[position + 1]! - estimateSums[position]!;
  // Which messages go by their estimate (with it), decided afresh each call from this history alone (the counts
  // themselves are kept, per message and by position): a decision kept from an earlier call, made with less history or
  // another conversation that began with the same message, would make this cut differ from a fresh trim of the same input.
  const estimated = new Map<CanonicalMessage, number>();
  const decided = new Set<CanonicalMessage>();
  const countOf = (message: CanonicalMessage) => estimated.get(message) ?? exact.countMessage(message);
  // What the window always keeps, counted exactly first: what it takes is not left for the steps.
  // By message (a message at two places is one to keep), with its first place.
  const pinned = new Map<CanonicalMessage, number>();
  const pin = (position: number): void => {
    if (position >= 0 && !pinned.has(messages[position]!)) pinned.set(messages[position]!, position);
  };
  for (let position = 0; position < messages.length && messages[position]!.role === 'system'; position += 1) pin(position);
  for (const position of [messages.findIndex(isTaskAnchorCandidate), messages.findLastIndex(isTaskAnchorCandidate), messages.findLastIndex((message) => message.role === 'user' && message.checkpoint === true)]) pin(position);
  let left = maxTokens;
  // The most the estimate has run over the exact count on this history's messages counted so far (from 1, at most
  // ESTIMATE_OVER_EXACT), of those long enough for the ratio to mean something.
  let overCount = 1;
  const counted = (position: number): number => {
    const tokens = exact.countMessage(messages[position]!);
    if (tokens >= RATIO_MIN_TOKENS) overCount = Math.min(ESTIMATE_OVER_EXACT, Math.max(overCount, estimateAt(position) / tokens));
    return tokens;
  };
  for (const [message, position] of pinned) {
    decided.add(message);
    left -= counted(position);
  }
  // Steps newest first, as the window walks them: its units (a tool call with its results, or one message).
  let everyStepFits = true;
  const units = buildHistoryUnits(messages);
  for (let unit = units.length - 1; unit >= 0; unit -= 1) {
    const { start, end } = units[unit]!;
    const newest = unit === units.length - 1;
    let estimate = 0;
    for (let position = start; position < end; position += 1) {
      const message = messages[position]!;
      if (!pinned.has(message)) estimate += decided.has(message) ? countOf(message) : estimateAt(position);
    }
    // The newest step is always kept (the window pins it); another estimated over what is left by more than the
    // estimate has run over the exact count is taken not to fit.
    const fits = newest || estimate <= overCount * left;
    let tokens = 0;
    for (let position = start; position < end; position += 1) {
      const message = messages[position]!;
      if (pinned.has(message)) continue;
      if (!decided.has(message)) {
        decided.add(message);
        if (!fits) estimated.set(message, estimateAt(position));
      }
      const byEstimate = estimated.get(message);
      if (byEstimate !== undefined) everyStepFits = false;
      tokens += byEstimate ?? counted(position);
    }
    if (newest || tokens <= left) left -= tokens;
    else everyStepFits = false;
  }
  // Everything fits by exact counts: the window would keep it all (the composer opens it with a user turn).
  if (everyStepFits && left >= 0) return [...messages];
  for (let round = 0; ; round += 1) {
    // Counted by this call's own decisions: the window indexes the history afresh, no index kept.
    const window = TRIM.window.select({ messages, budgetTokens: maxTokens, count: countOf, markStart: false });
    const estimatedKept = window.messages.filter((message) => estimated.has(message));
    if (estimatedKept.length === 0) return [...window.messages];
    for (const message of estimatedKept) estimated.delete(message);
    if (round + 1 >= RECUTS) for (const [message, tokens] of estimated) if (tokens <= maxTokens) estimated.delete(message);
  }
}

/** How many conversations' estimates trimHistory keeps, the most recent ones. */
const CONVERSATIONS_KEPT = 256;

/**
 * What trimHistory keeps across calls, so repeated trims of a growing
 * history cost what was appended: one counter of each kind per tokenizer
 * family (each caches the counts of the messages it counted lately), each
 * conversation's estimates by place (its `ContextMemory`), the composer and the window
 * (each keeps its index per conversation, checked message by message, so a
 * history that changed is composed and cut afresh from where it changed;
 * the window's with the estimate alone: with exact counts, which messages
 * go by their estimate is decided per call). Caches only: the same history
 * and options give the same messages.
 */
const TRIM = {
  counters: new Map<TokenizerFamily, { estimator: TokenEstimator; exact: TokenEstimator | undefined }>(),
  countFunctions: new WeakMap<TokenEstimator, (message: CanonicalMessage) => number>(),
  composer: new DefaultContextMessageComposer({ maskStoredResults: false }),
  window: new AtomicHistoryWindowPolicy(),
  /** Per conversation, what a turn keeps of it: here, the estimates of its composed messages by place. */
  memories: new BoundedCache<string, ContextMemory>(CONVERSATIONS_KEPT),
  /** A key per conversation, by the identity of its first message; a history that shares none is composed from scratch. */
  conversations: new WeakMap<CanonicalMessage, string>(),
  nextConversation: 0,
};

function countersFor(family: TokenizerFamily): { estimator: TokenEstimator; exact: TokenEstimator | undefined } {
  let counters = TRIM.counters.get(family);
  if (!counters) TRIM.counters.set(family, (counters = { estimator: new ConservativeTokenEstimator({ family }), exact: hasBuiltInExactTokenizer(family) ? new ExactTokenEstimator({ family }) : undefined }));
  return counters;
}

/** The same count function for a counter every call, so the window can keep its counts. */
function countFunction(counter: TokenEstimator): (message: CanonicalMessage) => number {
  let count = TRIM.countFunctions.get(counter);
  if (!count) TRIM.countFunctions.set(counter, (count = (message) => counter.countMessage(message)));
  return count;
}

function conversationKey(history: CanonicalHistory): string | undefined {
  const first = history[0];
  if (first === undefined) return undefined;
  let key = TRIM.conversations.get(first);
  if (key === undefined) TRIM.conversations.set(first, (key = `trim-${(TRIM.nextConversation += 1)}`));
  return key;
}
