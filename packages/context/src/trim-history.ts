import { checkCanonicalHistory } from './canonical-history-check.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { resolveContextBudget } from './context-configuration.js';
import { chooseCounter } from './counting-policy.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { ExactTokenEstimator, hasBuiltInExactTokenizer } from './exact-token-estimator.js';
import { tokenizerFamilyOf } from './tokenizer-family.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
import { isTaskAnchorCandidate } from './history-units.js';
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
 * tokenizer once the estimate reaches the budget. Any value in: a malformed
 * history is one `ContextInputError` naming the message and field; what
 * must be kept not fitting is a `ContextBudgetError`.
 */
export function trimHistory(messages: unknown, options: TrimHistoryOptions): CanonicalMessage[] {
  const history = checkCanonicalHistory(messages);
  if (!Number.isInteger(options.maxTokens) || options.maxTokens < 1) {
    throw new ConfigurationError({ setting: 'maxTokens', message: `trimHistory maxTokens must be a positive integer, got ${String(options.maxTokens)}` });
  }
  const family = options.model === undefined ? 'unknown' : tokenizerFamilyOf(options.model);
  const counters = countersFor(family);
  const estimator = options.estimator ?? counters.estimator;
  const contextId = conversationKey(history);
  const composed = TRIM.composer.compose({ contextId, history, messages: [], attachments: [] }).history;
  let estimated = 0;
  for (const message of composed) estimated += estimator.countMessage(message);
  const counter = chooseCounter({ estimator, exactEstimator: counters.exact, budget: resolveContextBudget({ inputCapTokens: options.maxTokens }), estimatedTokens: estimated });
  const count = counter === estimator ? countFunction(estimator) : exactWhereItDecides(composed, estimator, counter, options.maxTokens);
  const window = TRIM.window.select({ messages: composed, budgetTokens: options.maxTokens, count, contextId });
  return [...window.messages];
}

/**
 * What trimHistory keeps across calls, so repeated trims of a growing
 * history cost what was appended: one counter of each kind per tokenizer
 * family (each caches its count per message), the composer and the window
 * (each keeps its index per conversation, checked message by message, so a
 * history that changed is composed and cut afresh from where it changed).
 * Caches only: the same history and options give the same messages.
 */
const TRIM = {
  counters: new Map<TokenizerFamily, { estimator: TokenEstimator; exact: TokenEstimator | undefined }>(),
  countFunctions: new WeakMap<TokenEstimator, (message: CanonicalMessage) => number>(),
  composer: new DefaultContextMessageComposer({ maskStoredResults: false }),
  window: new AtomicHistoryWindowPolicy(),
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

/**
 * Exact counts for every message that could be kept: those the window
 * always keeps (leading system messages, the latest user request, the
 * latest checkpoint, the newest unit) and any whose estimate is within the
 * budget. A message estimated over the budget alone cannot fit however it
 * is counted, so its estimate stands: exact counting, the slow part of a
 * trim, is spent only where it can change the cut. (An estimate is not a
 * bound on a short text, so a message that may be kept is never left to it.)
 */
function exactWhereItDecides(messages: readonly CanonicalMessage[], estimator: TokenEstimator, exact: TokenEstimator, maxTokens: number): (message: CanonicalMessage) => number {
  const pinned = new Set<CanonicalMessage>();
  for (let index = 0; index < messages.length && messages[index]!.role === 'system'; index += 1) pinned.add(messages[index]!);
  const anchor = messages.findLast(isTaskAnchorCandidate);
  const checkpoint = messages.findLast((message) => message.role === 'user' && message.checkpoint === true);
  for (const message of [anchor, checkpoint]) if (message) pinned.add(message);
  // The newest unit: trailing results and the message they answer.
  let newest = messages.length - 1;
  while (newest > 0 && messages[newest]!.role === 'tool') newest -= 1;
  for (let index = Math.max(0, newest); index < messages.length; index += 1) pinned.add(messages[index]!);
  return (message) => {
    const estimate = estimator.countMessage(message);
    return estimate > maxTokens && !pinned.has(message) ? estimate : exact.countMessage(message);
  };
}
