// Recorded runs replayed under each policy and summed: what `strata replay`
// prints, callable in-process (the compaction benchmark uses it).
import { ConservativeTokenEstimator, ExactTokenEstimator, type CanonicalHistory, type TokenEstimator } from '@strata/context';
import { RECOVERABLE_POLICIES, REPLAY_POLICIES, type PolicyTurn, type ReplayPolicy } from './policy-turns.js';
import { addTally, emptyTally, policySummary, type OracleLike, type PolicySummary, type PolicyTally } from './replay-metrics.js';
import { replayRun, type RunReplayResult } from './replay-run.js';

export const REPLAY_ENCODINGS = ['o200k', 'cl100k', 'conservative'] as const;
export type ReplayEncoding = (typeof REPLAY_ENCODINGS)[number];

export interface ReplayTrajectoriesOptions {
  readonly trajectories: readonly { readonly id: string; readonly messages: CanonicalHistory }[];
  /** The input cap every replayed model call is assembled for. */
  readonly windowTokens: number;
  /** Default: every policy. */
  readonly policies?: readonly ReplayPolicy[];
  /** How tokens are counted, for the report and the exact-count decisions. Default o200k. */
  readonly encoding?: ReplayEncoding;
  /** The provider-rules oracle; without it `oracleViolations` is null. */
  readonly oracle?: OracleLike;
  /** Before each run is replayed (progress). */
  readonly onRunStart?: (id: string) => void;
  /** After each run, with its tallies and failures. */
  readonly onRun?: (id: string, result: RunReplayResult) => void;
  readonly onTurn?: (policy: ReplayPolicy, turn: PolicyTurn) => Promise<void>;
}

export interface ReplayTrajectoriesResult {
  /** Per policy, summed over every run. */
  readonly total: Record<ReplayPolicy, PolicySummary>;
  /** Runs a policy could not assemble: which, and why. */
  readonly failures: readonly { readonly id: string; readonly policy: ReplayPolicy; readonly message: string }[];
}

/** Replays every run under every policy and sums what each measured. */
export async function replayTrajectories(options: ReplayTrajectoriesOptions): Promise<ReplayTrajectoriesResult> {
  const policies = options.policies ?? REPLAY_POLICIES;
  const encoding = options.encoding ?? 'o200k';
  const exactEstimator = encoding === 'conservative' ? undefined : new ExactTokenEstimator({ family: encoding });
  const counter: TokenEstimator = exactEstimator ?? new ConservativeTokenEstimator({ family: 'unknown' });
  const totals = new Map<ReplayPolicy, PolicyTally>(policies.map((policy) => [policy, emptyTally(options.oracle !== undefined)]));
  const failures: Array<{ id: string; policy: ReplayPolicy; message: string }> = [];
  for (const trajectory of options.trajectories) {
    options.onRunStart?.(trajectory.id);
    const result = await replayRun({ trajectory: trajectory.messages, contextId: trajectory.id, policies, windowTokens: options.windowTokens, counter, exactEstimator, oracle: options.oracle, onTurn: options.onTurn });
    for (const policy of policies) {
      const failure = result.failures.get(policy);
      if (failure !== undefined) failures.push({ id: trajectory.id, policy, message: failure });
      addTally(totals.get(policy)!, result.tallies.get(policy)!);
    }
    options.onRun?.(trajectory.id, result);
  }
  const total = Object.fromEntries(policies.map((policy) => [policy, policySummary(totals.get(policy)!, totals.get('raw'), RECOVERABLE_POLICIES.has(policy))])) as Record<ReplayPolicy, PolicySummary>;
  return { total, failures };
}
