import { DBOS, Error as DBOSErrors } from '@dbos-inc/dbos-sdk';
import { createAgentRun, createDelegateTool, turnsLeft, untilAborted, type AgentEvent, type AgentRun, type AgentStopReason, type SubagentResult, type Timers } from '@strata/agent';
import { ConfigurationError, type ContextDiagnostic, type ContextScope, type SessionStore, type ToolOutputStore } from '@strata/context';
import { createModelSummarizer, type ModelUsage } from '@strata/model';
import { ToolRegistry } from '@strata/tools';
import type { ActiveTime } from './active-time.js';
import { createApprovalTool } from './approval-tool.js';
import { durableModelClient } from './durable-model-client.js';
import { settledTurn } from './settled-turn.js';
import { durableTool } from './durable-tools.js';
import type { RunLog } from './run-log.js';
import type { ServiceCatalog } from './service-catalog.js';

/** The DBOS names the API enqueues by and workers register. */
export const RUN_WORKFLOW_NAME = 'strata.run';
export const TURN_WORKFLOW_NAME = 'strata.turn';
export const SUBAGENT_WORKFLOW_NAME = 'strata.subagent';
export const RUN_QUEUE_NAME = 'strata-runs';

/** A run as `POST /runs` enqueued it; the workflow's input. */
export interface RunRequest {
  readonly runId: string;
  readonly profile: string;
  readonly model: string;
  readonly prompt: string;
}

/**
 * What a finished run workflow records. `stopReason` `timeout`: the run used
 * its profile's `runTimeoutMs` of active time, counted across all its turns
 * and restarts, waits excluded.
 */
export interface RunOutcome {
  readonly stopReason: AgentStopReason;
  readonly text: string;
  readonly turns: number;
  readonly usage: ModelUsage;
  /** Active time the run used: model calls, tools, assembly; not approvals, sub-agents, queueing or restarts. */
  readonly activeMs: number;
}

/** What one durable run of turns works on: a run the API enqueued, or a sub-agent one of its turns delegated to. */
interface TurnsTarget {
  /** The session: the run id, or `<parent context id>/subagent/<call id>`. */
  readonly contextId: string;
  /** The run the API started; its cancel stops every sub-agent under it. */
  readonly runId: string;
  readonly profile: string;
  readonly model: string;
  readonly prompt: string;
  readonly scope: Extract<ContextScope, 'main' | 'subagent'>;
}

/** A turn's input: its run's target, its number, and the active time the run used before it. */
interface TurnRequest extends TurnsTarget {
  readonly turn: number;
  readonly activeMsUsed: number;
}

/** The turn workflow of model turn `turn` of a run (or sub-agent): `<context id>/turn-<n>`. */
export function turnWorkflowId(contextId: string, turn: number): string {
  return `${contextId}/turn-${turn}`;
}

export interface RunWorkflowOptions {
  readonly catalog: ServiceCatalog;
  readonly sessionStore: SessionStore;
  readonly outputStore: ToolOutputStore;
  readonly runLog: RunLog;
  /** Gives each running turn a signal that fires when its run is cancelled (see `CancelWatch`). */
  readonly watchCancel: (runId: string) => { readonly signal: AbortSignal; release(): void };
  readonly onLogError?: (error: unknown) => void;
  /** The clock and timers of the runs' deadlines (and trace durations). Default: Node's timers and `performance.now`. */
  readonly clock?: { readonly now: () => number; readonly timers: Timers };
}

/**
 * Registers the workflows of a run (before `DBOS.launch`).
 *
 * `strata.run` (workflow id = run id) stores the prompt once (a step), then
 * starts one child workflow per model turn, `strata.turn` (`<run>/turn-<n>`),
 * until a turn ends the run. A finished turn's outcome is recorded, so after
 * a crash the run replays finished turns from the record and resumes the one
 * in progress.
 *
 * `strata.turn` is one `createAgentRun` over the stored session (the source
 * of truth for history and its context state), stopped at its first turn
 * boundary (`stopAtTurnEnd`): any worker continues the run from the session
 * exactly as one process would. Its first step records
 * the session version it starts from (`turn-start`), its model call is a
 * step (`model-turn`), each tool call a step (`tool:<call id>`). A
 * compaction is checkpointed by the session store itself (an atomic
 * compaction version, read back on replay) rather than by a DBOS step of its
 * own: a replay over the stored, already compacted history does not compact
 * again, so a step of its own would shift the turn's step order. A turn that
 * crashed replays its recorded steps and runs the rest; the step in progress
 * when the worker died runs again (tools get an idempotency key for that).
 * The agent stores a step (assistant message and its results) whole, after
 * its tools; a turn whose step is already stored is not run again
 * (`settledTurn`).
 *
 * The run deadline is run-wide: each turn starts from the active time the
 * turns before it used (their recorded outcomes), each model and tool step
 * records the reading as it ends, and a replayed step restores it. A run
 * whose active time reaches its profile's `runTimeoutMs` ends with
 * `timeout`: in the turn where the deadline fired (that turn's step stored
 * closed, its trace written), or before the next turn starts.
 *
 * A `delegate` call (a profile with `subagent`) starts `strata.subagent`
 * (id `<context id>/subagent/<call id>`), the same loop of turns over the
 * sub-agent's own session, as a child of the turn, and awaits its result
 * durably: after a restart the turn's replay finds the child it started and
 * waits for it, while the child resumes on its own. The parent's deadline is
 * paused while it waits.
 */
export function registerRunWorkflows(options: RunWorkflowOptions): { readonly runWorkflow: (request: RunRequest) => Promise<RunOutcome> } {
  const { catalog, runLog } = options;
  for (const [name, entry] of Object.entries(catalog.profiles)) {
    if (entry.subagent !== undefined && catalog.profiles[entry.subagent] === undefined) {
      throw new ConfigurationError({ setting: `profiles.${name}.subagent`, message: `profile ${name} delegates to the sub-agent profile ${entry.subagent}, which the catalog does not have` });
    }
  }
  const log = (contextId: string, event: { readonly type: string; readonly [key: string]: unknown }) => void runLog.append(contextId, event, options.onLogError);

  const turnWorkflow = DBOS.registerWorkflow(
    async (request: TurnRequest): Promise<RunOutcome> => {
      const entry = catalog.profiles[request.profile]!;
      // The first step of every turn: the session version it starts from. A replay that finds the turn's step already stored ends here.
      const startVersion = await DBOS.runStep(async () => (await options.sessionStore.load(request.contextId))?.version ?? 0, { name: 'turn-start' });
      const settled = await settledTurn({ sessions: options.sessionStore, contextId: request.contextId, startVersion });
      if (settled) return { ...settled, turns: 1, usage: {}, activeMs: request.activeMsUsed };
      const cancel = options.watchCancel(request.runId);
      let run: AgentRun | undefined;
      const activeTime: ActiveTime = { read: () => run?.activeMs() ?? request.activeMsUsed, advanceTo: (activeMs) => run?.advanceActiveTime(activeMs) };
      try {
        const tools = new ToolRegistry();
        const diagnose = (diagnostic: ContextDiagnostic) => log(request.contextId, { type: 'diagnostic', diagnostic });
        for (const tool of entry.tools ?? []) tools.register(durableTool(tool, activeTime, diagnose));
        if (entry.approvals && request.scope === 'main') tools.register(createApprovalTool({ beginExternalWait: () => run!.beginExternalWait() }));
        if (entry.subagent !== undefined) {
          const subagent = entry.subagent;
          tools.register(
            createDelegateTool({
              profile: catalog.profiles[subagent]!.profile,
              runSubagent: ({ contextId, task, signal }) => awaitSubagent({ contextId, runId: request.runId, profile: subagent, model: request.model, prompt: task, scope: 'subagent' }, signal),
            }),
          );
        }
        const model = catalog.model(request.model);
        const counting = catalog.counting?.(request.model) ?? {};
        run = createAgentRun(
          { ...entry.profile, scope: request.scope },
          {
            model: durableModelClient(model, activeTime, diagnose),
            tools,
            outputStore: options.outputStore,
            sessionStore: options.sessionStore,
            // Turn n is the run's model turn n: a turn replayed after a crash writes its trace under its own number, replacing the one cut short.
            traceSink: { ...runLog.traceSink(), lastTurn: async () => request.turn - 1 },
            configuration: catalog.configuration,
            ...(counting.estimator ? { estimator: counting.estimator } : {}),
            ...(counting.exactEstimator ? { exactEstimator: counting.exactEstimator } : {}),
            summarizer: createModelSummarizer({ client: model }),
            now: options.clock?.now,
            timers: options.clock?.timers,
          },
          { contextId: request.contextId, signal: cancel.signal, activeMsUsed: request.activeMsUsed, stopAtTurnEnd: true, onEvent: (event) => forwardEvent(request.contextId, event, log) },
        );
        const result = await run.execute();
        await runLog.flush(request.contextId);
        return { stopReason: result.stopReason, text: result.text, turns: result.turns, usage: result.usage, activeMs: run.activeMs() };
      } finally {
        cancel.release();
      }
    },
    { name: TURN_WORKFLOW_NAME },
  );

  /** The turns of a run or sub-agent, until one ends it, its turns are used up, or its active time reaches its deadline. */
  const runTurns = async (target: TurnsTarget): Promise<RunOutcome> => {
    const profile = catalog.profiles[target.profile]?.profile;
    let outcome: RunOutcome = { stopReason: 'max-turns', text: '', turns: 0, usage: {}, activeMs: 0 };
    // Fires once the run is marked cancelled: a cancel often surfaces here as the workflow's lost ownership (DBOSWorkflowConflictError), not a cancel error.
    const cancel = options.watchCancel(target.runId);
    try {
      await DBOS.runStep(() => storePrompt(options.sessionStore, target), { name: 'store-prompt' });
      // The agent's own turn limit, counted over the run's turns rather than one execution's.
      for (let turn = 1; turnsLeft(turn - 1, profile?.maxTurns); turn += 1) {
        if (profile?.runTimeoutMs !== undefined && outcome.activeMs >= profile.runTimeoutMs) {
          outcome = { ...outcome, stopReason: 'timeout', text: '' };
          break;
        }
        const handle = await DBOS.startWorkflow(turnWorkflow, { workflowID: turnWorkflowId(target.contextId, turn) })({ ...target, turn, activeMsUsed: outcome.activeMs });
        const result = await handle.getResult();
        outcome = { stopReason: result.stopReason, text: result.text, turns: turn, usage: addUsage(outcome.usage, result.usage), activeMs: result.activeMs };
        // A turn that ran its tools paused at its boundary: the run goes on with the next turn.
        if (result.stopReason !== 'turn-end') break;
      }
      // The last turn allowed paused at its boundary: the run is out of turns.
      if (outcome.stopReason === 'turn-end') outcome = { ...outcome, stopReason: 'max-turns' };
    } catch (error) {
      const finished = runEndOfError(error, cancel.signal.aborted);
      if (finished) {
        log(target.contextId, finished);
        await runLog.flush(target.contextId);
      }
      throw error;
    } finally {
      cancel.release();
    }
    log(target.contextId, { type: 'run-finished', ...outcome });
    await runLog.flush(target.contextId);
    return outcome;
  };

  const subagentWorkflow = DBOS.registerWorkflow(runTurns, { name: SUBAGENT_WORKFLOW_NAME });

  /**
   * Starts the sub-agent's workflow as a child of the calling turn, or, on a
   * replay, finds the one it started; then awaits its result (a recorded
   * step of the turn). The parent's cancel ends the wait at once; the child
   * is cancelled with its run.
   */
  const awaitSubagent = async (target: TurnsTarget, signal: AbortSignal): Promise<SubagentResult> => {
    const handle = await DBOS.startWorkflow(subagentWorkflow, { workflowID: target.contextId })(target);
    return untilAborted(handle.getResult(), signal);
  };

  const runWorkflow = DBOS.registerWorkflow((request: RunRequest) => runTurns({ ...request, contextId: request.runId, scope: 'main' }), { name: RUN_WORKFLOW_NAME });

  return { runWorkflow };
}

/**
 * The `run-finished` event a run's workflow logs when its turns throw, or
 * none: a workflow that lost its ownership to another executor (DBOS
 * recovered it there) has not finished; the run goes on, and the executor that
 * owns it logs how it ends. A lost ownership once the run is cancelled is the
 * cancel (DBOS often reports a cancel that way).
 */
export function runEndOfError(error: unknown, cancelRequested: boolean): { readonly type: 'run-finished'; readonly stopReason: 'cancelled' | 'failed'; readonly message: string } | undefined {
  const cancelled = cancelRequested || error instanceof DBOSErrors.DBOSWorkflowCancelledError || error instanceof DBOSErrors.DBOSAwaitedWorkflowCancelledError;
  if (!cancelled && error instanceof DBOSErrors.DBOSWorkflowConflictError) return undefined;
  return { type: 'run-finished', stopReason: cancelled ? 'cancelled' : 'failed', message: error instanceof Error ? error.message : String(error) };
}

/** The prompt is stored once, when the session is new: a run replayed after a crash never stores it twice. */
async function storePrompt(sessions: SessionStore, target: TurnsTarget): Promise<void> {
  const stored = await sessions.load(target.contextId);
  if (stored !== undefined && stored.messages.length > 0) return;
  await sessions.append(target.contextId, [{ role: 'user', content: target.prompt }], { expectedVersion: stored?.version ?? 0 });
}

/** The agent's events as the API streams them: per-turn ends are dropped (the run sends `run-finished`); traces are served apart. */
function forwardEvent(contextId: string, event: AgentEvent, log: (contextId: string, event: { readonly type: string; readonly [key: string]: unknown }) => void): void {
  if (event.type === 'context-assembled') {
    log(contextId, { type: 'context-assembled', turn: event.turn });
    return;
  }
  log(contextId, JSON.parse(JSON.stringify(event, errorsAsText)) as { type: string });
}

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}

function addUsage(total: ModelUsage, next: ModelUsage): ModelUsage {
  const sum: Record<string, number> = { ...total } as Record<string, number>;
  for (const [key, value] of Object.entries(next)) if (typeof value === 'number') sum[key] = (sum[key] ?? 0) + value;
  return sum;
}
