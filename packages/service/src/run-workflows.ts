import { DBOS, Error as DBOSErrors } from '@dbos-inc/dbos-sdk';
import { createAgentRun, type AgentEvent, type AgentRun } from '@strata/agent';
import type { SessionStore, ToolOutputStore } from '@strata/context';
import { createModelSummarizer, type ModelUsage } from '@strata/model';
import { ToolRegistry } from '@strata/tools';
import { createApprovalTool } from './approval-tool.js';
import { durableModelClient } from './durable-model-client.js';
import { settledTurn } from './settled-turn.js';
import { durableTool } from './durable-tools.js';
import type { RunLog } from './run-log.js';
import type { ServiceCatalog } from './service-catalog.js';

/** The DBOS names the API enqueues by and workers register. */
export const RUN_WORKFLOW_NAME = 'strata.run';
export const TURN_WORKFLOW_NAME = 'strata.turn';
export const RUN_QUEUE_NAME = 'strata-runs';
/** Default model turns of a run when its profile sets none (the agent's own default). */
const DEFAULT_MAX_TURNS = 50;

/** A run as `POST /runs` enqueued it; the workflow's input. */
export interface RunRequest {
  readonly runId: string;
  readonly profile: string;
  readonly model: string;
  readonly prompt: string;
}

/** What a finished run workflow records. */
export interface RunOutcome {
  readonly stopReason: string;
  readonly text: string;
  readonly turns: number;
  readonly usage: ModelUsage;
}

/** The turn workflow of model turn `turn` of a run: `<run id>/turn-<n>`. */
export function turnWorkflowId(runId: string, turn: number): string {
  return `${runId}/turn-${turn}`;
}

export interface RunWorkflowOptions {
  readonly catalog: ServiceCatalog;
  readonly sessionStore: SessionStore;
  readonly outputStore: ToolOutputStore;
  readonly runLog: RunLog;
  /** Gives each running turn a signal that fires when its run is cancelled (see `CancelWatch`). */
  readonly watchCancel: (runId: string) => { readonly signal: AbortSignal; release(): void };
  readonly onLogError?: (error: unknown) => void;
}

/**
 * Registers the two workflows of a run (before `DBOS.launch`).
 *
 * `strata.run` (workflow id = run id) stores the prompt once (a step), then
 * starts one child workflow per model turn, `strata.turn` (`<run>/turn-<n>`),
 * until a turn ends the run. A finished turn's outcome is recorded, so after
 * a crash the run replays finished turns from the record and resumes the one
 * in progress.
 *
 * `strata.turn` is one `createAgentRun` of at most one model turn over the
 * stored session (the source of truth for history): its first step records
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
 */
export function registerRunWorkflows(options: RunWorkflowOptions): { readonly runWorkflow: (request: RunRequest) => Promise<RunOutcome> } {
  const { catalog, runLog } = options;
  const log = (runId: string, event: { readonly type: string; readonly [key: string]: unknown }) => void runLog.append(runId, event, options.onLogError);

  const turnWorkflow = DBOS.registerWorkflow(
    async (request: RunRequest): Promise<RunOutcome> => {
      const entry = catalog.profiles[request.profile]!;
      // The first step of every turn: the session version it starts from. A replay that finds the turn's step already stored ends here.
      const startVersion = await DBOS.runStep(async () => (await options.sessionStore.load(request.runId))?.version ?? 0, { name: 'turn-start' });
      const settled = await settledTurn({ sessions: options.sessionStore, contextId: request.runId, startVersion });
      if (settled) return { ...settled, turns: 1, usage: {} };
      const cancel = options.watchCancel(request.runId);
      let run: AgentRun | undefined;
      try {
        const tools = new ToolRegistry();
        for (const tool of entry.tools ?? []) tools.register(durableTool(tool));
        if (entry.approvals) tools.register(createApprovalTool({ beginExternalWait: () => run!.beginExternalWait() }));
        const model = catalog.model(request.model);
        run = createAgentRun(
          { ...entry.profile, maxTurns: 1 },
          {
            model: durableModelClient(model),
            tools,
            outputStore: options.outputStore,
            sessionStore: options.sessionStore,
            traceSink: runLog.traceSink(),
            configuration: catalog.configuration,
            summarizer: createModelSummarizer({ client: model }),
          },
          { contextId: request.runId, signal: cancel.signal, onEvent: (event) => forwardEvent(request.runId, event, log) },
        );
        const result = await run.execute();
        await runLog.flush(request.runId);
        return { stopReason: result.stopReason, text: result.text, turns: result.turns, usage: result.usage };
      } finally {
        cancel.release();
      }
    },
    { name: TURN_WORKFLOW_NAME },
  );

  const runWorkflow = DBOS.registerWorkflow(
    async (request: RunRequest): Promise<RunOutcome> => {
      const maxTurns = catalog.profiles[request.profile]?.profile.maxTurns ?? DEFAULT_MAX_TURNS;
      let usage: ModelUsage = {};
      let outcome: RunOutcome = { stopReason: 'max-turns', text: '', turns: 0, usage };
      try {
        await DBOS.runStep(() => storePrompt(options.sessionStore, request), { name: 'store-prompt' });
        for (let turn = 1; turn <= maxTurns; turn += 1) {
          const handle = await DBOS.startWorkflow(turnWorkflow, { workflowID: turnWorkflowId(request.runId, turn) })(request);
          const result = await handle.getResult();
          usage = addUsage(usage, result.usage);
          outcome = { stopReason: result.stopReason, text: result.text, turns: turn, usage };
          // A turn that ran its tools stops at its one-turn cap: the run goes on with the next turn.
          if (result.stopReason !== 'max-turns') break;
        }
      } catch (error) {
        const cancelled = error instanceof DBOSErrors.DBOSWorkflowCancelledError || error instanceof DBOSErrors.DBOSAwaitedWorkflowCancelledError;
        log(request.runId, { type: 'run-finished', stopReason: cancelled ? 'cancelled' : 'failed', message: error instanceof Error ? error.message : String(error) });
        await runLog.flush(request.runId);
        throw error;
      }
      log(request.runId, { type: 'run-finished', ...outcome });
      await runLog.flush(request.runId);
      return outcome;
    },
    { name: RUN_WORKFLOW_NAME },
  );

  return { runWorkflow };
}

/** The prompt is stored once, when the session is new: a run replayed after a crash never stores it twice. */
async function storePrompt(sessions: SessionStore, request: RunRequest): Promise<void> {
  const stored = await sessions.load(request.runId);
  if (stored !== undefined && stored.messages.length > 0) return;
  await sessions.append(request.runId, [{ role: 'user', content: request.prompt }], { expectedVersion: stored?.version ?? 0 });
}

/** The agent's events as the API streams them: per-turn ends are dropped (the run sends `run-finished`); traces are served apart. */
function forwardEvent(runId: string, event: AgentEvent, log: (runId: string, event: { readonly type: string; readonly [key: string]: unknown }) => void): void {
  if (event.type === 'run-end' && event.stopReason === 'max-turns') return;
  if (event.type === 'context-assembled') {
    log(runId, { type: 'context-assembled', turn: event.turn });
    return;
  }
  log(runId, JSON.parse(JSON.stringify(event, errorsAsText)) as { type: string });
}

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}

function addUsage(total: ModelUsage, next: ModelUsage): ModelUsage {
  const sum: Record<string, number> = { ...total } as Record<string, number>;
  for (const [key, value] of Object.entries(next)) if (typeof value === 'number') sum[key] = (sum[key] ?? 0) + value;
  return sum;
}
