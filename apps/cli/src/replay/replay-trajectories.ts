// Recorded runs replayed under each policy and summed: what `strata replay`
// prints, callable in-process (the compaction benchmark uses it).
import { ConservativeTokenEstimator, ExactTokenEstimator, type CanonicalHistory, type TokenEstimator } from '@strata/context';
import { RECOVERABLE_POLICIES, REPLAY_POLICIES, type PolicyTurn, type ReplayPolicy } from './policy-turns.js';
import { addTally, emptyTally, policySummary, type OracleLike, type PolicySummary } from './replay-metrics.js';
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
  /**
   * Per policy, summed over the compared runs: those every chosen policy
   * assembled, so reduction, cost and recall compare the same requests.
   * `failedRuns` is the policy's count of runs it could not assemble.
   */
  readonly total: Record<ReplayPolicy, PolicySummary>;
  /** Per policy, summed over every run it assembled (reduction against raw over those runs). */
  readonly assembled: Record<ReplayPolicy, PolicySummary>;
  /** How many runs were replayed, and how many of them every policy assembled. */
  readonly compared: { readonly runs: number; readonly of: number };
  /**
   * Per policy, summed over the compared runs raw sends whole within the
   * window (where a policy should never cost more than sending everything),
   * and how many they are; undefined when raw is not among the policies.
   */
  readonly whereRawFits?: { readonly runs: number; readonly total: Record<ReplayPolicy, PolicySummary> };
  /** Runs a policy could not assemble: which, and why. */
  readonly failures: readonly { readonly id: string; readonly policy: ReplayPolicy; readonly message: string }[];
}

/** Replays every run under every policy and sums what each measured. */
export async function replayTrajectories(options: ReplayTrajectoriesOptions): Promise<ReplayTrajectoriesResult> {
  const policies = options.policies ?? REPLAY_POLICIES;
  const encoding = options.encoding ?? 'o200k';
  const exactEstimator = encoding === 'conservative' ? undefined : new ExactTokenEstimator({ family: encoding });
  const counter: TokenEstimator = exactEstimator ?? new ConservativeTokenEstimator({ family: 'unknown' });
  const oracle = options.oracle !== undefined;
  const results: RunReplayResult[] = [];
  const failures: Array<{ id: string; policy: ReplayPolicy; message: string }> = [];
  for (const trajectory of options.trajectories) {
    options.onRunStart?.(trajectory.id);
    const result = await replayRun({ trajectory: trajectory.messages, contextId: trajectory.id, policies, windowTokens: options.windowTokens, counter, exactEstimator, oracle: options.oracle, onTurn: options.onTurn });
    for (const policy of policies) {
      const failure = result.failures.get(policy);
      if (failure !== undefined) failures.push({ id: trajectory.id, policy, message: failure });
    }
    results.push(result);
    options.onRun?.(trajectory.id, result);
  }
  const failedRuns = (policy: ReplayPolicy) => results.filter((result) => result.failures.has(policy)).length;
  /** Each policy's tallies summed over the runs `include` keeps, and raw's over the same runs. */
  const summaries = (include: (result: RunReplayResult, policy: ReplayPolicy) => boolean) =>
    Object.fromEntries(
      policies.map((policy) => {
        const kept = results.filter((result) => include(result, policy));
        const sum = (of: ReplayPolicy) => {
          const tally = emptyTally(oracle);
          for (const result of kept) addTally(tally, result.tallies.get(of)!);
          return tally;
        };
        const tally = sum(policy);
        tally.failedRuns = failedRuns(policy);
        return [policy, policySummary(tally, policies.includes('raw') ? sum('raw') : undefined, RECOVERABLE_POLICIES.has(policy))];
      }),
    ) as Record<ReplayPolicy, PolicySummary>;
  const everyPolicyAssembled = (result: RunReplayResult) => result.failures.size === 0;
  const rawFits = (result: RunReplayResult) => everyPolicyAssembled(result) && result.tallies.get('raw')!.overWindow === 0;
  return {
    total: summaries(everyPolicyAssembled),
    assembled: summaries((result, policy) => !result.failures.has(policy)),
    compared: { runs: results.filter(everyPolicyAssembled).length, of: results.length },
    ...(policies.includes('raw') ? { whereRawFits: { runs: results.filter(rawFits).length, total: summaries(rawFits) } } : {}),
    failures,
  };
}
