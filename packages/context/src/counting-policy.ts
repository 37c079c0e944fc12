import type { ResolvedContextBudget } from './context-configuration.js';
import type { TokenEstimator } from './token-estimator.js';

/** Share of the input cap from which decisions are made on exact counts. Default 0.85. */
export const EXACT_COUNT_CAP_SHARE = 0.85;

export interface CountingPolicyOptions {
  /** The fast counter: the conservative estimate, which may over-count but never under-counts. */
  readonly estimator: TokenEstimator;
  /** Exact counts for the model's tokenizer, when known. */
  readonly exactEstimator?: TokenEstimator;
  readonly budget: ResolvedContextBudget;
  /** Share of the input cap from which exact counts decide. Default `EXACT_COUNT_CAP_SHARE`. */
  readonly exactCapShare?: number;
}

/**
 * The one counting rule of a turn: a turn is counted exactly when an exact
 * counter is known and the estimate of everything it would send reaches the
 * pressure threshold or `exactCapShare` of the cap, whichever is lower.
 * Below both, estimates (which only over-count) lead to the same decisions
 * as exact counts would: no compaction and no cut; above, exact counts keep
 * estimates from compacting or cutting what would have fitted.
 */
export function chooseCounter(options: CountingPolicyOptions & { readonly estimatedTokens: number }): TokenEstimator {
  const { estimator, exactEstimator, budget } = options;
  if (!exactEstimator) return estimator;
  const thresholdTokens = Math.min(budget.pressureTokens, Math.floor(budget.inputCapTokens * (options.exactCapShare ?? EXACT_COUNT_CAP_SHARE)));
  return options.estimatedTokens >= thresholdTokens ? exactEstimator : estimator;
}
