// The replay policies: each turns one recorded run into the request every
// model call of the recording would have sent under that policy.
import type { CanonicalHistory, CanonicalMessage, ContextTraceV5, TokenEstimator, ToolOutputStore } from '@strata/context';
import { clearToolUsesRequests, lastNMaskingRequests, rawRequests } from './replay-baselines.js';
import { replayTrajectory } from './replay-trajectory.js';

export const REPLAY_POLICIES = Object.freeze(['raw', 'last-n', 'clear-tool-uses', 'pressure', 'masked-view'] as const);
export type ReplayPolicy = (typeof REPLAY_POLICIES)[number];

/** What each policy is, for the output's legend. */
export const POLICY_DESCRIPTIONS: Readonly<Record<ReplayPolicy, string>> = Object.freeze({
  raw: 'the whole history every turn',
  'last-n': 'SWE-agent observation masking: tool results older than the last 5 become a one-line note',
  'clear-tool-uses': "Anthropic's clear_tool_uses edit as documented: once the whole history is past the window, every tool result but the newest 3 is cleared",
  pressure: "Strata's default: results whose preview at most halves them shown as previews with a read_tool_output reference (a stable prefix), compaction under token pressure, window cuts with half the budget free",
  'masked-view': 'Strata with every stored result shown as its preview with a reference, the newest step whole (a stable prefix)',
});

/** Policies that store what they remove and can give it back through `read_tool_output`. */
export const RECOVERABLE_POLICIES: ReadonlySet<ReplayPolicy> = new Set(['pressure', 'masked-view']);

export interface PolicyTurn {
  readonly trajectoryIndex: number;
  readonly messages: readonly CanonicalMessage[];
  readonly compacted: boolean;
  readonly assemblyMs: number;
  /** Strata policies: the turn's trace. */
  readonly trace?: ContextTraceV5;
}

export interface PolicyRun {
  readonly turns: readonly PolicyTurn[];
  readonly compactions: number;
}

export interface PolicyRunOptions {
  readonly policy: ReplayPolicy;
  readonly trajectory: CanonicalHistory;
  readonly contextId: string;
  readonly windowTokens: number;
  /** Counts the baselines' trigger; the same counter the report uses. */
  readonly counter: TokenEstimator;
  readonly exactEstimator?: TokenEstimator;
  /** Where Strata policies store tool outputs (so they can be read back). */
  readonly store: ToolOutputStore;
}

/** Runs one policy over one recorded run. Strata policies may throw the assembler's typed errors. */
export async function runPolicy(options: PolicyRunOptions): Promise<PolicyRun> {
  const { trajectory, policy } = options;
  if (policy === 'pressure' || policy === 'masked-view') {
    const replay = await replayTrajectory({
      trajectory,
      contextId: options.contextId,
      windowTokens: options.windowTokens,
      store: options.store,
      compaction: {},
      exactEstimator: options.exactEstimator,
      // The masked view masks every stored result; `pressure` is the default pipeline as it stands.
      ...(policy === 'masked-view' ? { maskStoredResults: true } : {}),
    });
    return {
      compactions: replay.compactions,
      turns: replay.turns.map((turn) => ({ trajectoryIndex: turn.trajectoryIndex, messages: turn.assembled.input.messages, compacted: turn.assembled.historyChanged, assemblyMs: turn.assemblyMs, trace: turn.assembled.trace })),
    };
  }
  const started = performance.now();
  const turns =
    policy === 'raw'
      ? rawRequests(trajectory)
      : policy === 'last-n'
        ? lastNMaskingRequests(trajectory, { keep: 5 })
        : clearToolUsesRequests(trajectory, { triggerTokens: options.windowTokens, countMessage: (message) => options.counter.countMessage(message) });
  const perTurn = turns.length === 0 ? 0 : (performance.now() - started) / turns.length;
  return { compactions: turns.filter((turn) => turn.compacted).length, turns: turns.map((turn) => ({ ...turn, assemblyMs: perTurn })) };
}
