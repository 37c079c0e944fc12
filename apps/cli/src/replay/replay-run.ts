// One recorded run replayed under every chosen policy, measured.
import { ContextBudgetError, ContextValidationError, type CanonicalHistory, type CanonicalMessage, type ToolOutputStore, type TokenEstimator } from '@strata/context';
import { createMemoryToolOutputStore, toolOutputIdSequence } from '@strata/store';
import { createReadToolOutputTool } from '@strata/tools';
import { RECOVERABLE_POLICIES, runPolicy, type PolicyTurn, type ReplayPolicy } from './policy-turns.js';
import { laterUseRecall } from './later-use-recall.js';
import { anchorAndGoal, emptyTally, oracleViolations, pairingProblems, tallyTokens, MessageTokens, type OracleLike, type PolicyTally } from './replay-metrics.js';

export interface RunReplayOptions {
  readonly trajectory: CanonicalHistory;
  readonly contextId: string;
  readonly policies: readonly ReplayPolicy[];
  readonly windowTokens: number;
  readonly counter: TokenEstimator;
  readonly exactEstimator?: TokenEstimator;
  readonly oracle?: OracleLike;
  /** Called with each Strata turn, for `--trace-dir`. */
  readonly onTurn?: (policy: ReplayPolicy, turn: PolicyTurn) => Promise<void>;
}

export interface RunReplayResult {
  readonly tallies: Map<ReplayPolicy, PolicyTally>;
  /** Per policy that could not replay this run: the one-line reason. */
  readonly failures: Map<ReplayPolicy, string>;
}

/**
 * A store that remembers what each reference was given, apart from its own
 * read path. Its ids follow the run's own sequence, the same for every
 * policy and every replay: an id's token count then never tips one policy's
 * cut to another turn than another's.
 */
function recordingStore(seed: string): { store: ToolOutputStore; originals: Map<string, string> } {
  const backing = createMemoryToolOutputStore({ newId: toolOutputIdSequence(seed) });
  const originals = new Map<string, string>();
  const store: ToolOutputStore = {
    ...backing,
    put: async (output) => {
      const ref = await backing.put(output);
      originals.set(ref.id, output.body);
      return ref;
    },
  };
  return { store, originals };
}

type ReadTool = ReturnType<typeof createReadToolOutputTool>;

async function execute(tool: ReadTool, contextId: string, args: Record<string, unknown>) {
  return tool.execute(args as never, { contextId, toolCallId: 'replay', signal: new AbortController().signal });
}

/** A stored body read back through `read_tool_output`, page by page, following each answer's `next`. */
async function readBack(tool: ReadTool, contextId: string, ref: string): Promise<string | undefined> {
  let text = '';
  let args: Record<string, unknown> | null = { ref, lines: { start: 1 } };
  for (let pages = 0; args && pages < 100_000; pages += 1) {
    const outcome = await execute(tool, contextId, args);
    if (outcome.isError) return undefined;
    text += outcome.content.slice(outcome.content.indexOf('\n') + 1);
    args = (outcome.data as { next: Record<string, unknown> | null }).next;
  }
  return text;
}

export async function replayRun(options: RunReplayOptions): Promise<RunReplayResult> {
  const { trajectory, contextId } = options;
  const tokens = new MessageTokens(options.counter);
  const original = new Set<CanonicalMessage>(trajectory);
  const tallies = new Map<ReplayPolicy, PolicyTally>();
  const failures = new Map<ReplayPolicy, string>();
  for (const policy of options.policies) {
    const tally = emptyTally(options.oracle !== undefined);
    const { store, originals } = recordingStore(contextId);
    let run;
    try {
      run = await runPolicy({ policy, trajectory, contextId: policyContextId(contextId, policy), windowTokens: options.windowTokens, counter: options.counter, exactEstimator: options.exactEstimator, store });
    } catch (error) {
      if (!ContextBudgetError.isInstance(error) && !ContextValidationError.isInstance(error)) throw error;
      failures.set(policy, error.message);
      tally.failedRuns = 1;
      tallies.set(policy, tally);
      continue;
    }
    tally.runs = 1;
    tally.turns = run.turns.length;
    tally.compactions = run.compactions;
    tallyTokens(run.turns, tokens, tally, options.windowTokens);
    const tool = createReadToolOutputTool({ store });
    const checked = new Set<string>();
    const maskedIds = new Set<string>();
    for (const turn of run.turns) {
      await options.onTurn?.(policy, turn);
      tally.assemblyMs.push(turn.assemblyMs);
      const problems = pairingProblems(turn.messages);
      tally.orphans += problems.orphans;
      tally.splitUnits += problems.splitUnits;
      const kept = anchorAndGoal(trajectory.slice(0, turn.trajectoryIndex), turn.messages);
      if (kept.anchor !== undefined) {
        tally.anchorTurns += 1;
        if (kept.anchor) tally.anchorKept += 1;
      }
      if (kept.goal !== undefined) {
        tally.goalTurns += 1;
        if (kept.goal) tally.goalKept += 1;
      }
      if (options.oracle) tally.oracleViolations! += oracleViolations(options.oracle, turn.messages);
      // Results shown other than whole: masked or cleared (baselines), previews with a reference (Strata).
      for (const message of turn.messages) {
        if (message.role !== 'tool' || original.has(message)) continue;
        const ref = message.outputRef?.id;
        if (ref !== undefined && message.content === originals.get(ref)) continue;
        maskedIds.add(message.toolCallId);
        if (ref === undefined || checked.has(ref) || !RECOVERABLE_POLICIES.has(policy)) continue;
        checked.add(ref);
        tally.masked += 1;
        if ((await readBack(tool, policyContextId(contextId, policy), ref)) === originals.get(ref)) tally.recovered += 1;
      }
      // Later-use recall: what the recorded answer used from earlier in the run, visible or behind a reference the input shows.
      const recall = await laterUseRecall({ trajectory, callIndex: turn.trajectoryIndex, input: turn.messages, store: RECOVERABLE_POLICIES.has(policy) ? store : undefined, contextId: policyContextId(contextId, policy) });
      tally.needed += recall.needed.length;
      tally.visible += recall.visible.length;
      tally.byReference += recall.byReference.length;
      tally.missed += recall.missed.length;
    }
    if (!RECOVERABLE_POLICIES.has(policy)) tally.masked = maskedIds.size;
    tallies.set(policy, tally);
  }
  return { tallies, failures };
}

/**
 * The context id of a trajectory's run under a policy: `<trajectory id>.<policy>`,
 * only characters a trace folder keeps as they are when the trajectory id has them.
 */
export function policyContextId(contextId: string, policy: string): string {
  return `${contextId}.${policy}`;
}
