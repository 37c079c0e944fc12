import type { ResolvedContextBudget } from './context-configuration.js';

export interface TokenPressureRequest {
  /** Everything the turn would send before the window cuts anything: tools, system prompt, call-local data, history. */
  readonly totalTokens: number;
  /** The part of it that is not history (tools, system prompt, call-local data). */
  readonly fixedTokens: number;
  readonly budget: ResolvedContextBudget;
}

export interface TokenPressure {
  /** True when the history should be compacted before this turn. */
  readonly compact: boolean;
  /** Tokens the history may use after compaction to relieve pressure. */
  readonly targetHistoryTokens: number;
  /** The most the history can use at all: the cap less everything else. */
  readonly limitHistoryTokens: number;
}

/** The token-pressure stage: decides whether the turn compacts, and to what size. */
export interface TokenPressurePolicy {
  measure(request: TokenPressureRequest): TokenPressure;
}

/**
 * Pressure starts when everything the turn would send reaches the budget's
 * `pressureTokens`; compaction then aims the history at what is left of the
 * pressure threshold, and never lets it past what is left of the cap.
 */
export class ThresholdTokenPressurePolicy implements TokenPressurePolicy {
  measure(request: TokenPressureRequest): TokenPressure {
    const { totalTokens, fixedTokens, budget } = request;
    return {
      compact: totalTokens >= budget.pressureTokens,
      targetHistoryTokens: Math.max(0, budget.pressureTokens - fixedTokens),
      limitHistoryTokens: Math.max(0, budget.inputCapTokens - fixedTokens),
    };
  }
}
