import type { ResolvedContextBudget } from './context-configuration.js';
import { withDefined, type ContextState } from './context-state.js';
import type { ContextDiagnostic } from './contributor.js';

/** Below this share of what we counted, a provider's count means the prompt it read was shorter than the one sent. */
export const TRUNCATION_SHARE = 0.5;

/** What one model call was counted at, by us and by the provider. */
export interface UsageObservation {
  /** Our count of the input sent (the turn trace's `budget.totalTokens`). */
  readonly countedTokens: number;
  /** The input tokens the provider reported for that call (any value: a non-number means it reported none). */
  readonly reportedTokens: unknown;
  /** Named in the diagnostics. */
  readonly turn: number;
}

/**
 * Usage feedback: the context state after a provider counted a call's input.
 * Where it counted more than we did, the context's `inputTokenRatio` rises to
 * its count over ours (never falls), and every later turn of the context is
 * assembled for the cap divided by it (`calibratedBudget`), in any process,
 * since the ratio is part of the context state. A count far below ours
 * (under `TRUNCATION_SHARE`) is a warning: some local servers cut a prompt
 * past their window silently instead of refusing it.
 */
export function calibrateContextState(state: ContextState, observation: UsageObservation): { readonly state: ContextState; readonly diagnostics: readonly ContextDiagnostic[] } {
  const { countedTokens, reportedTokens, turn } = observation;
  if (typeof reportedTokens !== 'number' || !Number.isFinite(reportedTokens) || reportedTokens <= 0 || !(countedTokens > 0)) return { state, diagnostics: [] };
  const ratio = reportedTokens / countedTokens;
  const diagnostics: ContextDiagnostic[] = [];
  if (ratio < TRUNCATION_SHARE) {
    diagnostics.push({
      code: 'CONTEXT_PROVIDER_COUNT_LOW',
      severity: 'warning',
      subject: `turn ${turn}`,
      message: `the provider counted ${reportedTokens} input tokens for turn ${turn}, where ${countedTokens} were sent: the server may have truncated the prompt (check its context length)`,
    });
  }
  if (ratio <= (state.inputTokenRatio ?? 1)) return { state, diagnostics };
  diagnostics.push({
    code: 'CONTEXT_USAGE_CALIBRATED',
    severity: 'info',
    subject: `turn ${turn}`,
    message: `the provider counted ${reportedTokens} input tokens for turn ${turn} where Strata counted ${countedTokens}; later turns are assembled for the cap divided by ${ratio.toFixed(3)}`,
  });
  return { state: withDefined({ ...state, inputTokenRatio: ratio }), diagnostics };
}

/** The budget a context's turns are assembled for once its provider has counted more than we do: cap and pressure line divided by the ratio. */
export function calibratedBudget(budget: ResolvedContextBudget, state: ContextState): ResolvedContextBudget {
  const ratio = state.inputTokenRatio;
  if (ratio === undefined || ratio <= 1) return budget;
  return { ...budget, inputCapTokens: Math.max(1, Math.floor(budget.inputCapTokens / ratio)), pressureTokens: Math.max(1, Math.floor(budget.pressureTokens / ratio)) };
}
