import { checkCanonicalHistory } from './canonical-history-check.js';
import { ConservativeTokenEstimator, countMessageUncached } from './conservative-token-estimator.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { ExactTokenEstimator, hasBuiltInExactTokenizer } from './exact-token-estimator.js';
import { tokenizerFamilyOf } from './tokenizer-family.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
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
 * as the window counts (`HistoryWindowRequest.exactCount`): the estimate,
 * and the model's exact tokenizer once the estimate passes the budget, then
 * only where a count can change the cut (every message kept was counted
 * exactly). Counts are kept across calls, per message, and the window's
 * index per conversation, so repeated trims of a growing history count
 * what was appended; what is kept is never the caller's array (change
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
  const contextId = conversationKey(history);
  const composed = TRIM.composer.compose({ contextId, history, messages: [], attachments: [] }).history;
  // The window keeps its index (units, estimates) per conversation; exact counts, where the model's tokenizer is known,
  // decide the cut where they can change it (history-window.ts), each message counted once by the exact counter.
  const count = options.estimator === undefined ? counters.estimate : countFunction(options.estimator);
  return [...TRIM.window.select({ messages: composed, budgetTokens: options.maxTokens, count, exactCount: counters.exactCount, contextId, markStart: false }).messages];
}

/**
 * A tokenizer family's counters as trimHistory asks them: the same
 * functions every call, so the window keeps its counts. The window keeps
 * them by position (its index per conversation), so these are asked
 * without the counters' cache per message object.
 */
interface FamilyCounters {
  /** The conservative estimate of one message. */
  readonly estimate: (message: CanonicalMessage) => number;
  /** The exact count of one message, where the family's tokenizer is built in. */
  readonly exactCount: ((message: CanonicalMessage) => number) | undefined;
}

/**
 * What trimHistory keeps across calls, so repeated trims of a growing
 * history cost what was appended: the counters of each tokenizer family,
 * a count function per caller's estimator, the composer and the window
 * (each keeps its index per conversation, checked message by message, so a
 * history that changed is composed and cut afresh from where it changed;
 * the window's holds the estimates and exact counts by position, and which
 * steps are counted exactly is decided per cut). Caches only: the same
 * history and options give the same messages.
 */
const TRIM = {
  counters: new Map<TokenizerFamily, FamilyCounters>(),
  countFunctions: new WeakMap<TokenEstimator, (message: CanonicalMessage) => number>(),
  composer: new DefaultContextMessageComposer({ maskStoredResults: false }),
  window: new AtomicHistoryWindowPolicy(),
  /** A key per conversation, by the identity of its first message; a history that shares none is composed from scratch. */
  conversations: new WeakMap<CanonicalMessage, string>(),
  nextConversation: 0,
};

function countersFor(family: TokenizerFamily): FamilyCounters {
  let counters = TRIM.counters.get(family);
  if (!counters) {
    const estimator = new ConservativeTokenEstimator({ family });
    const exact = hasBuiltInExactTokenizer(family) ? new ExactTokenEstimator({ family }) : undefined;
    counters = { estimate: (message) => countMessageUncached(estimator, message), exactCount: exact && ((message) => countMessageUncached(exact, message)) };
    TRIM.counters.set(family, counters);
  }
  return counters;
}

/** The same count function for a caller's estimator every call (its `countMessage`, as it answers), so the window can keep its counts. */
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
