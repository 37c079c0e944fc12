import type { ResolvedContextBudget } from './context-configuration.js';
import { withDefined, type ContextState } from './context-state.js';
import type { ContextDiagnostic } from './contributor.js';

/** Below this share of what we counted, a provider's count means the prompt it read was shorter than the one sent. */
export const TRUNCATION_SHARE = 0.5;

/**
 * When the input grew by at least `TRUNCATION_MIN_GROWTH` tokens by our count
 * since the last call, a provider whose count grew by less than this share of
 * what the last call's ratio predicts read a shorter prompt than was sent: a
 * server that drops the oldest messages past its window stops growing there.
 */
export const TRUNCATION_GROWTH_SHARE = 0.25;
export const TRUNCATION_MIN_GROWTH = 32;

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
 * (under `TRUNCATION_SHARE`), or one that stopped growing while the input
 * grew (`TRUNCATION_GROWTH_SHARE`, against the last call's counts, which the
 * state keeps), is a warning: some local servers cut a prompt past their
 * window silently instead of refusing it.
 */
export function calibrateContextState(state: ContextState, observation: UsageObservation): { readonly state: ContextState; readonly diagnostics: readonly ContextDiagnostic[] } {
  const { countedTokens, reportedTokens, turn } = observation;
  if (typeof reportedTokens !== 'number' || !Number.isFinite(reportedTokens) || reportedTokens <= 0 || !(countedTokens > 0)) return { state, diagnostics: [] };
  const ratio = reportedTokens / countedTokens;
  const diagnostics: ContextDiagnostic[] = [];
  const previous = state.lastUsage;
  const grown = previous === undefined ? 0 : countedTokens - previous.counted;
  const stalled = previous !== undefined && grown >= TRUNCATION_MIN_GROWTH && reportedTokens - previous.reported < TRUNCATION_GROWTH_SHARE * grown * (previous.reported / previous.counted);
  if (ratio < TRUNCATION_SHARE || stalled) {
    const why = ratio < TRUNCATION_SHARE ? `where ${countedTokens} were sent` : `${grown} more than the call before by Strata's count, while the provider's count went from ${previous!.reported} to ${reportedTokens}`;
    diagnostics.push({
      code: 'CONTEXT_PROVIDER_COUNT_LOW',
      severity: 'warning',
      subject: `turn ${turn}`,
      message: `the provider counted ${reportedTokens} input tokens for turn ${turn}, ${why}: the server may have truncated the prompt (check its context length)`,
    });
  }
  const counted = withDefined({ ...state, lastUsage: { counted: countedTokens, reported: reportedTokens } });
  if (ratio <= (state.inputTokenRatio ?? 1)) return { state: counted, diagnostics };
  diagnostics.push({
    code: 'CONTEXT_USAGE_CALIBRATED',
    severity: 'info',
    subject: `turn ${turn}`,
    message: `the provider counted ${reportedTokens} input tokens for turn ${turn} where Strata counted ${countedTokens}; later turns are assembled for the cap divided by ${ratio.toFixed(3)}`,
  });
  return { state: withDefined({ ...counted, inputTokenRatio: ratio }), diagnostics };
}

/** The budget a context's turns are assembled for once its provider has counted more than we do: cap and pressure line divided by the ratio. */
export function calibratedBudget(budget: ResolvedContextBudget, state: ContextState): ResolvedContextBudget {
  const ratio = state.inputTokenRatio;
  if (ratio === undefined || ratio <= 1) return budget;
  return { ...budget, inputCapTokens: Math.max(1, Math.floor(budget.inputCapTokens / ratio)), pressureTokens: Math.max(1, Math.floor(budget.pressureTokens / ratio)) };
}
