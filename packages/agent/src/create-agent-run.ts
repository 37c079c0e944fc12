import { createHash } from 'node:crypto';
import {
  buildHistoryUnits,
  createContextPipeline,
  CredentialVault,
  describeRedactions,
  interruptedResult,
  originalRequest,
  resolveContextBudget,
  type CanonicalHistory,
  type CanonicalMessage,
  type ContextConfiguration,
  type ContextContributorFactory,
  type ContextDiagnostic,
  type ContextScope,
  type ContextStageEvent,
  type HistoryCompactorOptions,
  type MessageComposerOptions,
  type ResolvedContextBudget,
  type SessionStore,
  type Summarizer,
  type Timers,
  type TokenEstimator,
  type ToolOutputStore,
  type TraceSink,
} from '@strata/context';
import { redactingModelClient, type ModelClient } from '@strata/model';
import { deferredToolsContributorFactory, type ToolRegistry } from '@strata/tools';
import type { AgentEvent } from './agent-events.js';
import { AgentRunState } from './agent-run-state.js';
import { NativeAgent, type AgentRunResult } from './native-agent.js';
import { RunDeadline } from './run-deadline.js';
import { RunTraceSink } from './run-trace-sink.js';
import { profileSectionsFactory, type ProfileSections } from './profile-sections.js';
import { laneContributorFactory } from './lanes/lane-contributors.js';
import { delegationLaneReducer, reviewLaneReducer, skillLaneReducer } from './lanes/lane-reducers.js';
import { planLaneReducer } from './lanes/plan-tool.js';
import { RunLanes, type LaneName, type LaneReducer } from './lanes/run-lanes.js';
import { attachRunHandle } from './run-handle.js';
import { promoteByRoutingHints, type RoutingHint } from './routing-hints.js';

/** A skill the agent read: its frozen revision is the durable reference. */
export interface SkillReference {
  readonly name: string;
  readonly revision: string;
  /** The `read_skill` call whose result carried the body. */
  readonly toolCallId: string;
}

/**
 * Each scope's built-in contributors besides the profile's own: the main run
 * sees every lane and the deferred tools; a sub-agent works on its task
 * with its plan, skills, artifacts and memory; a reviewer reads artifacts
 * and the skills it used.
 */
const SCOPE_LANES: Readonly<Record<ContextScope, readonly LaneName[]>> = {
  main: ['plan', 'skill', 'delegation', 'artifact', 'review', 'memory'],
  subagent: ['plan', 'skill', 'artifact', 'memory'],
  reviewer: ['skill', 'artifact'],
};
const SCOPE_DEFERRED_TOOLS: Readonly<Record<ContextScope, boolean>> = { main: true, subagent: true, reviewer: false };

/** The lane reducers every run has: plan, skills, delegations and reviews. */
const BUILT_IN_REDUCERS: readonly LaneReducer[] = [planLaneReducer, skillLaneReducer, delegationLaneReducer, reviewLaneReducer];

/** Who the agent is: stable across runs. */
export interface AgentProfile {
  readonly id: string;
  readonly scope?: ContextScope;
  /** Identity, governance and run contract (protected) and guidance sections of the system prompt. */
  readonly sections?: ProfileSections;
  readonly contributors?: readonly ContextContributorFactory[];
  /** Default `DEFAULT_MAX_TURNS` (50). */
  readonly maxTurns?: number;
  readonly runTimeoutMs?: number;
  readonly idleTimeoutMs?: number;
  /** Tool calls one assistant message may ask for; more refuse the step. Default 128. */
  readonly maxToolCallsPerStep?: number;
  readonly compaction?: Omit<HistoryCompactorOptions, 'summarizer'>;
  /**
   * Observation masking as a view: stored results shown as previews with
   * their refs, the newest step's bodies sent whole after the history. Keeps
   * the prompt prefix stable for provider caches. Default: the composer's
   * (results whose preview is at most `MASK_PREVIEW_SHARE` of the body);
   * `false` sends every result whole until compaction masks it.
   */
  readonly maskStoredResults?: MessageComposerOptions['maskStoredResults'];
  /** The legacy path's system prompt (modes legacy and shadow). */
  readonly legacySystemPrompt?: string;
  /** Deferred tools promoted before the first model call when the request matches. */
  readonly routingHints?: readonly RoutingHint[];
  /** Lane updates read from other packages' tools (artifacts, memory); the built-in ones are always there. */
  readonly laneReducers?: readonly LaneReducer[];
  /** Repeated-call refusals (the registry's loop guard) a run takes before it stops with `loop-guard`. Default 3. */
  readonly maxRepeatedCallRefusals?: number;
}

/** The infrastructure a run uses, injected by the caller (the CLI, an API server, a test). */
export interface AgentBindings {
  readonly model: ModelClient;
  readonly tools: ToolRegistry;
  readonly outputStore: ToolOutputStore;
  readonly sessionStore?: SessionStore;
  readonly traceSink?: TraceSink;
  readonly configuration: ContextConfiguration;
  readonly estimator?: TokenEstimator;
  readonly exactEstimator?: TokenEstimator;
  /** Enables checkpoint summaries during compaction. */
  readonly summarizer?: Summarizer;
  /** The run's timers and clock (deadlines, idle timeout, contributor and stage durations in traces). Default: Node's timers and performance.now. */
  readonly timers?: Timers;
  readonly now?: () => number;
  /** Each assembler stage of each turn, timed (telemetry: `createAgentTelemetry().onStage`). */
  readonly onStage?: (event: ContextStageEvent) => void;
  /**
   * What composing the bindings noticed (`createDefaultBindings`: a
   * configured window larger than the server accepts, a failed window
   * discovery): each run emits them as diagnostic events as it starts and
   * reports them first in its result.
   */
  readonly diagnostics?: readonly ContextDiagnostic[];
}

export interface AgentRunInput {
  readonly contextId: string;
  /** A new user request; omitted to resume the stored session as it is. */
  readonly prompt?: string;
  /** The run contract's goal; default the context's original request (see `originalRequest`). */
  readonly goal?: string;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: AgentEvent) => void;
  /**
   * Active time earlier executions of this run used (a durable run's earlier
   * turns, as its checkpoints recorded): the run deadline (`runTimeoutMs`)
   * counts on from it, so it bounds the whole run. Default 0.
   */
  readonly activeMsUsed?: number;
  /**
   * Stop at the first turn boundary with `turn-end` (the turn's step is
   * stored); the next `createAgentRun` over the session goes on from it, in
   * any process, as this run would have. For durable execution. Default false.
   */
  readonly stopAtTurnEnd?: boolean;
}

/** The authorities that shaped a run's result, frozen when it starts. */
export interface AgentVersionRecord {
  readonly profileId: string;
  readonly model: string;
  readonly mode: ContextConfiguration['mode'];
  readonly budget: ResolvedContextBudget;
  readonly tools: readonly string[];
  /** sha256 of the visible tool schemas, sorted by name. */
  readonly toolSetHash: string;
  readonly skills: readonly SkillReference[];
}

export interface AgentRun {
  execute(): Promise<AgentRunResult & { readonly version: AgentVersionRecord }>;
  /** Pauses the run deadline while waiting on a person or a subagent. */
  beginExternalWait(): () => void;
  /** Active time the run has used, `activeMsUsed` included, external waits excluded; for a durable checkpoint. */
  activeMs(): number;
  /**
   * A checkpoint replayed after a restart recorded `activeMs` of active time
   * at this point: the run's clock moves forward to it (never back), and the
   * run times out at once when that is past its deadline.
   */
  advanceActiveTime(activeMs: number): void;
}

/**
 * The executor seam: every main, subagent and reviewer run enters here.
 * Loads the stored session (so a run resumes after a restart), appends the
 * prompt, and runs the native loop.
 */
export function createAgentRun(profile: AgentProfile, bindings: AgentBindings, input: AgentRunInput): AgentRun {
  const deadline = new RunDeadline({ runTimeoutMs: profile.runTimeoutMs, idleTimeoutMs: profile.idleTimeoutMs, usedMs: input.activeMsUsed, signal: input.signal, timers: bindings.timers, now: bindings.now });
  return {
    beginExternalWait: () => deadline.beginExternalWait(),
    activeMs: () => deadline.activeMs(),
    advanceActiveTime: (activeMs) => deadline.advanceTo(activeMs),
    async execute() {
      const lanes = new RunLanes([...BUILT_IN_REDUCERS, ...(profile.laneReducers ?? [])]);
      const runState = () => lanes.snapshot();
      let state = new AgentRunState({ contextId: input.contextId, sessionStore: bindings.sessionStore, runState });
      // The budget is resolved once per run; authorities are frozen as it starts, skill references accrue as it goes.
      const budget = resolveContextBudget(bindings.configuration);
      const frozen = versionRecord(profile, bindings, budget);
      const version = (): AgentVersionRecord => ({ ...frozen, skills: skillReferences(lanes) });
      let goal: string | undefined;
      try {
        // Reading the session writes nothing; only a prompt or a closed interrupted step is stored.
        state = await AgentRunState.load({ contextId: input.contextId, sessionStore: bindings.sessionStore, firstTurn: (history) => firstTurn(history, input.contextId, bindings.traceSink), runState });
        // The lanes as the session stored them; a run created from a history without them fills them from it, before anything is compacted.
        if (!lanes.restore(state.storedRunState)) lanes.backfill(state.history);
        goal = input.goal ?? (await originalRequest({ contextId: input.contextId, history: state.history, prompt: input.prompt, sessionStore: bindings.sessionStore }));
        await state.commitStep([...closeInterruptedCalls(state.history), ...(input.prompt === undefined ? [] : [{ role: 'user' as const, content: input.prompt }])]);
      } catch (error) {
        // A run never throws for a runtime failure: it ends with a reason.
        deadline.dispose();
        input.onEvent?.({ type: 'run-end', stopReason: 'runtime-error' });
        return { stopReason: 'runtime-error', finalMessages: state.history, text: '', turns: 0, usage: {}, diagnostics: [], error, version: version() };
      }

      const scope = profile.scope ?? 'main';
      if (profile.routingHints && input.prompt !== undefined) promoteByRoutingHints({ registry: bindings.tools, request: input.prompt, hints: profile.routingHints });
      attachRunHandle(deadline.signal, { contextId: input.contextId, scope, lanes, beginExternalWait: () => deadline.beginExternalWait() });
      const traceSink = bindings.traceSink ? new RunTraceSink(bindings.traceSink) : undefined;
      const { assembler, estimator } = createContextPipeline({
        contextId: input.contextId,
        scope,
        budget,
        configuration: bindings.configuration,
        contributors: [...builtInContributors({ profile, scope, lanes, tools: bindings.tools }), ...(profile.contributors ?? [])],
        goal,
        estimator: bindings.estimator,
        exactEstimator: bindings.exactEstimator,
        summarizer: bindings.summarizer,
        compaction: profile.compaction,
        maskStoredResults: profile.maskStoredResults,
        outputStore: bindings.outputStore,
        traceSink,
        onStage: bindings.onStage,
        now: bindings.now,
        timers: bindings.timers,
        legacySystemPrompt: profile.legacySystemPrompt,
      });
      // Credentials in tool results and model output become markers before anything holds them; with `redactToolOutputs: false` the run's vault gives the provider and the tools the values.
      const vault = bindings.configuration.redactToolOutputs === false ? new CredentialVault() : undefined;
      const client = redactingModelClient(bindings.model, {
        vault,
        restoreRequests: vault !== undefined,
        onRedacted: (redactions) => input.onEvent?.({ type: 'diagnostic', diagnostic: { code: 'AGENT_CREDENTIALS_REDACTED', severity: 'warning', subject: input.contextId, message: `the model's output carried credentials (${describeRedactions(redactions)}); they were redacted before it was kept` } }),
      });
      const agent = new NativeAgent({
        now: bindings.now,
        state,
        lanes,
        assembler,
        client,
        vault,
        registry: bindings.tools,
        outputStore: bindings.outputStore,
        deadline,
        inputCapTokens: frozen.budget.inputCapTokens,
        estimator,
        traceSink,
        scope,
        maxTurns: profile.maxTurns,
        maxToolCallsPerStep: profile.maxToolCallsPerStep,
        maxRepeatedCallRefusals: profile.maxRepeatedCallRefusals,
        stopAtTurnEnd: input.stopAtTurnEnd,
        onEvent: input.onEvent,
      });
      for (const diagnostic of bindings.diagnostics ?? []) input.onEvent?.({ type: 'diagnostic', diagnostic });
      const result = await agent.execute();
      return { ...result, diagnostics: [...(bindings.diagnostics ?? []), ...result.diagnostics], version: version() };
    },
  };
}

/** The contributors every run of a scope has, before the profile's own. */
function builtInContributors(options: { profile: AgentProfile; scope: ContextScope; lanes: RunLanes; tools: ToolRegistry }): ContextContributorFactory[] {
  const { profile, scope, lanes, tools } = options;
  return [
    profileSectionsFactory(profile.sections ?? {}),
    ...(SCOPE_DEFERRED_TOOLS[scope] ? [deferredToolsContributorFactory({ registry: tools })] : []),
    ...SCOPE_LANES[scope].map((lane) => laneContributorFactory({ lane, lanes })),
  ];
}

/** The skills read in this run (and back-filled from its history), from the skill lane. */
function skillReferences(lanes: RunLanes): SkillReference[] {
  return lanes.entries('skill').map((entry) => ({ name: entry.key, revision: String((entry.value as { revision?: unknown }).revision), toolCallId: entry.toolCallId }));
}

function versionRecord(profile: AgentProfile, bindings: AgentBindings, budget: ResolvedContextBudget): AgentVersionRecord {
  const tools = bindings.tools.visibleTools();
  return {
    profileId: profile.id,
    model: `${bindings.model.provider}:${bindings.model.modelId}`,
    mode: bindings.configuration.mode,
    budget,
    tools: tools.map((tool) => tool.name),
    toolSetHash: createHash('sha256').update(JSON.stringify(tools)).digest('hex'),
    skills: [],
  };
}

/**
 * Turn numbers go on across runs of one context, so a resumed run never
 * reuses a turn's trace name: after the highest turn the trace sink holds
 * and after every model answer in the stored history.
 */
async function firstTurn(history: CanonicalHistory, contextId: string, sink: TraceSink | undefined): Promise<number> {
  const answered = history.filter((message) => message.role === 'assistant').length;
  return Math.max(answered, (await sink?.lastTurn?.(contextId)) ?? 0) + 1;
}

/** A stored session that stopped mid-step gets "interrupted" results, so the next model call is valid. */
function closeInterruptedCalls(history: readonly CanonicalMessage[]): CanonicalMessage[] {
  const last = buildHistoryUnits(history).at(-1);
  if (!last || last.pendingCallIds.length === 0) return [];
  const first = last.messages[0]!;
  const calls = first.role === 'assistant' ? first.toolCalls ?? [] : [];
  return last.pendingCallIds.map((id) => interruptedResult(id, calls.find((call) => call.id === id)?.name ?? 'unknown'));
}
