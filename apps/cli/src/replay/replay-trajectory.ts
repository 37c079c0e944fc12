import {
  createContextPipeline,
  originalRequest,
  resolveContextBudget,
  type AssembledTurn,
  type CanonicalHistory,
  type CanonicalMessage,
  type ContextState,
  type HistoryCompactorOptions,
  type MessageComposerOptions,
  type TokenEstimator,
  type ToolOutputStore,
  type ToolSchema,
} from '@strata/context';
import { storeToolResult } from '@strata/tools';

export interface ReplayOptions {
  /** A recorded run, as canonical messages (see the trajectory importers of @strata/context). */
  readonly trajectory: CanonicalHistory;
  readonly contextId: string;
  /** The input cap every replayed model call is assembled for. */
  readonly windowTokens: number;
  readonly store: ToolOutputStore;
  /** `false`: window only, no compaction. */
  readonly compaction: HistoryCompactorOptions | false;
  readonly estimator?: TokenEstimator;
  readonly exactEstimator?: TokenEstimator;
  /** Share of the cap at which compaction starts (see resolveContextBudget). */
  readonly pressureRatio?: number;
  /** Observation masking as a view (see DefaultContextMessageComposer). Default: the composer's. */
  readonly maskStoredResults?: MessageComposerOptions['maskStoredResults'];
  /** The run contract's goal snapshot: the trajectory's first user request as a protected section, as every run adds it. Default true. */
  readonly goalSnapshot?: boolean;
  /** The tools offered on every call, as the recorded run offered them. Default none. */
  readonly tools?: readonly ToolSchema[];
}

export interface ReplayTurn {
  /** Index in the trajectory of the assistant message this call produced. */
  readonly trajectoryIndex: number;
  readonly assembled: AssembledTurn;
  /** Wall-clock milliseconds the assembly took. */
  readonly assemblyMs: number;
  /** The canonical history as the session held it when the call was made. */
  readonly canonical: CanonicalHistory;
}

export interface ReplayResult {
  readonly turns: readonly ReplayTurn[];
  readonly compactions: number;
  readonly finalHistory: CanonicalHistory;
}

/**
 * The model calls of a recorded run: the index of every assistant message
 * that comes after the first user message (each is one call's answer).
 */
export function modelCallIndexes(trajectory: CanonicalHistory): number[] {
  const indexes: number[] = [];
  let userSeen = false;
  trajectory.forEach((message, index) => {
    if (message.role === 'assistant' && userSeen) indexes.push(index);
    if (message.role === 'user') userSeen = true;
  });
  return indexes;
}

/**
 * Replays a recorded run through the real pipeline: every assistant message
 * of the trajectory is one model call, assembled over the canonical history
 * as the session would hold it (compacted where compaction ran, each tool
 * result stored with its reference), then the recorded answer is appended.
 */
export async function replayTrajectory(options: ReplayOptions): Promise<ReplayResult> {
  const budget = resolveContextBudget({ inputCapTokens: options.windowTokens, pressureRatio: options.pressureRatio });
  const goal = options.goalSnapshot === false ? undefined : await originalRequest({ contextId: options.contextId, history: options.trajectory });
  // The pipeline every run uses, so the replay measures what runs send.
  const { assembler } = createContextPipeline({
    contextId: options.contextId,
    budget,
    goal,
    outputStore: options.store,
    estimator: options.estimator,
    exactEstimator: options.exactEstimator,
    compaction: options.compaction,
    maskStoredResults: options.maskStoredResults,
  });
  let canonical: CanonicalMessage[] = [];
  let state: ContextState | undefined;
  const turns: ReplayTurn[] = [];
  let compactions = 0;
  const calls = new Set(modelCallIndexes(options.trajectory));
  for (const [index, message] of options.trajectory.entries()) {
    if (calls.has(index)) {
      const started = performance.now();
      const assembled = await assembler.assemble({ contextId: options.contextId, turn: turns.length + 1, history: canonical, tools: options.tools ?? [], state });
      const assemblyMs = performance.now() - started;
      state = assembled.state;
      if (assembled.historyChanged) {
        compactions += 1;
        canonical = [...assembled.history];
      }
      turns.push({ trajectoryIndex: index, assembled, assemblyMs, canonical: [...canonical] });
    }
    // A result a run already stored (a recorded session) keeps its reference; any other is stored as a run would store it.
    if (message.role === 'tool' && message.outputRef === undefined) {
      canonical.push({ ...(await storeToolResult({ store: options.store, contextId: options.contextId, call: { id: message.toolCallId, name: message.toolName }, outcome: { content: message.content, ...(message.isError ? { isError: true } : {}) } })) });
    } else canonical.push(message);
  }
  return { turns, compactions, finalHistory: canonical };
}
