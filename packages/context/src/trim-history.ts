import { checkCanonicalHistory } from './canonical-history-check.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { resolveContextBudget } from './context-configuration.js';
import { chooseCounter } from './counting-policy.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { tokenizerFamilyOf, ExactTokenEstimator } from './exact-token-estimator.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
import { isTaskAnchorCandidate } from './history-units.js';
import { DefaultContextMessageComposer } from './message-composer.js';
import type { CanonicalMessage } from './messages.js';
import type { TokenEstimator } from './token-estimator.js';

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
  const estimator = options.estimator ?? new ConservativeTokenEstimator({ family });
  const exactEstimator = family === 'unknown' ? undefined : new ExactTokenEstimator({ family });
  const composed = new DefaultContextMessageComposer({ maskStoredResults: false }).compose({ history, messages: [], attachments: [] }).history;
  let estimated = 0;
  for (const message of composed) estimated += estimator.countMessage(message);
  const counter = chooseCounter({ estimator, exactEstimator, budget: resolveContextBudget({ inputCapTokens: options.maxTokens }), estimatedTokens: estimated });
  const count = counter === estimator ? (message: CanonicalMessage) => estimator.countMessage(message) : exactWhereItDecides(composed, estimator, counter, options.maxTokens);
  const window = new AtomicHistoryWindowPolicy().select({ messages: composed, budgetTokens: options.maxTokens, count });
  return [...window.messages];
}

/**
 * Exact counts for the messages that decide the cut: the newest ones until
 * their estimate reaches twice the budget, and those the window always keeps
 * (leading system messages, the latest user request, the latest checkpoint).
 * Older messages keep their estimate, which only over-counts: one of them is
 * kept only when it fits even so. Exact counting is the slow part of a trim;
 * this bounds it by the budget, not the history.
 */
function exactWhereItDecides(messages: readonly CanonicalMessage[], estimator: TokenEstimator, exact: TokenEstimator, maxTokens: number): (message: CanonicalMessage) => number {
  const counted = new Set<CanonicalMessage>();
  let estimated = 0;
  for (let index = messages.length - 1; index >= 0 && estimated <= 2 * maxTokens; index -= 1) {
    counted.add(messages[index]!);
    estimated += estimator.countMessage(messages[index]!);
  }
  for (let index = 0; index < messages.length && messages[index]!.role === 'system'; index += 1) counted.add(messages[index]!);
  const anchor = messages.findLast(isTaskAnchorCandidate);
  const checkpoint = messages.findLast((message) => message.role === 'user' && message.checkpoint === true);
  for (const message of [anchor, checkpoint]) if (message) counted.add(message);
  return (message) => (counted.has(message) ? exact : estimator).countMessage(message);
}
