import { createHash } from 'node:crypto';
import {
  buildHistoryUnits,
  ConservativeTokenEstimator,
  ContextContributorRegistry,
  createContextAssembler,
  DefaultContextMessageComposer,
  DefaultHistoryCompactor,
  interruptedResult,
  resolveContextBudget,
  type CanonicalHistory,
  type CanonicalMessage,
  type ContextConfiguration,
  type ContextContributorFactory,
  type ContextScope,
  type ContextStageEvent,
  type HistoryCompactorOptions,
  type ResolvedContextBudget,
  type SessionStore,
  type Summarizer,
  type TokenEstimator,
  type ToolOutputStore,
  type TraceSink,
} from '@strata/context';
import type { ModelClient } from '@strata/model';
import type { ToolRegistry } from '@strata/tools';
import type { AgentEvent } from './agent-events.js';
import { AgentRunState } from './agent-run-state.js';
import { NativeAgent, type AgentRunResult } from './native-agent.js';
import { RunDeadline, type Timers } from './run-deadline.js';
import { RunTraceSink } from './run-trace-sink.js';
import { profileSectionsFactory, type ProfileSections } from './profile-sections.js';
import { skillReferenceContributorFactory, type SkillReference } from './skill-reference-contributor.js';

/** Who the agent is: stable across runs. */
export interface AgentProfile {
  readonly id: string;
  readonly scope?: ContextScope;
  /** Identity, governance and run contract (protected) and guidance sections of the system prompt. */
  readonly sections?: ProfileSections;
  readonly contributors?: readonly ContextContributorFactory[];
  /** Default 50. */
  readonly maxTurns?: number;
  readonly runTimeoutMs?: number;
  readonly idleTimeoutMs?: number;
  /** Tool calls one assistant message may ask for; more refuse the step. Default 128. */
  readonly maxToolCallsPerStep?: number;
  readonly compaction?: Omit<HistoryCompactorOptions, 'summarizer'>;
  /**
   * Observation masking as a view: stored results shown as previews with
   * their refs, the newest step's bodies sent whole after the history. Keeps
   * the prompt prefix stable for provider caches. Default false.
   */
  readonly maskStoredResults?: boolean;
  /** The legacy path's system prompt (modes legacy and shadow). */
  readonly legacySystemPrompt?: string;
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
  /** The run's timers and clock (deadlines, idle timeout). Default: Node's timers and performance.now. */
  readonly timers?: Timers;
  readonly now?: () => number;
  /** Each assembler stage of each turn, timed (telemetry: `createAgentTelemetry().onStage`). */
  readonly onStage?: (event: ContextStageEvent) => void;
}

export interface AgentRunInput {
  readonly contextId: string;
  /** A new user request; omitted to resume the stored session as it is. */
  readonly prompt?: string;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: AgentEvent) => void;
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
}

/**
 * The executor seam: every main, subagent and reviewer run enters here.
 * Loads the stored session (so a run resumes after a restart), appends the
 * prompt, and runs the native loop.
 */
export function createAgentRun(profile: AgentProfile, bindings: AgentBindings, input: AgentRunInput): AgentRun {
  const deadline = new RunDeadline({ runTimeoutMs: profile.runTimeoutMs, idleTimeoutMs: profile.idleTimeoutMs, signal: input.signal, timers: bindings.timers, now: bindings.now });
  return {
    beginExternalWait: () => deadline.beginExternalWait(),
    async execute() {
      let state = new AgentRunState({ contextId: input.contextId, sessionStore: bindings.sessionStore });
      // The budget is resolved once per run; authorities are frozen as it starts, skill references accrue as it goes.
      const budget = resolveContextBudget(bindings.configuration);
      const frozen = versionRecord(profile, bindings, budget);
      const version = (): AgentVersionRecord => ({ ...frozen, skills: [...state.skillReferences] });
      try {
        // Reading the session writes nothing; only a prompt or a closed interrupted step is stored.
        state = await AgentRunState.load({ contextId: input.contextId, sessionStore: bindings.sessionStore, firstTurn: (history) => firstTurn(history, input.contextId, bindings.traceSink) });
        await state.commitStep([...closeInterruptedCalls(state.history), ...(input.prompt === undefined ? [] : [{ role: 'user' as const, content: input.prompt }])]);
      } catch (error) {
        // A run never throws for a runtime failure: it ends with a reason.
        deadline.dispose();
        input.onEvent?.({ type: 'run-end', stopReason: 'runtime-error' });
        return { stopReason: 'runtime-error', finalMessages: state.history, text: '', turns: 0, usage: {}, diagnostics: [], error, version: version() };
      }

      const scope = profile.scope ?? 'main';
      const registry = new ContextContributorRegistry();
      const builtIn = [profileSectionsFactory(profile.sections ?? {}), skillReferenceContributorFactory({ references: () => state.skillReferences })];
      for (const factory of [...builtIn, ...(profile.contributors ?? [])]) {
        registry.registerFactory(factory, { contextId: input.contextId, scope });
      }
      const traceSink = bindings.traceSink ? new RunTraceSink(bindings.traceSink) : undefined;
      const estimator = bindings.estimator ?? new ConservativeTokenEstimator({ family: bindings.exactEstimator?.family ?? 'unknown' });
      const assembler = createContextAssembler({
        registry,
        budget,
        outputStore: bindings.outputStore,
        mode: bindings.configuration.mode,
        configuration: bindings.configuration,
        compactor: new DefaultHistoryCompactor({ ...profile.compaction, ...(bindings.summarizer ? { summarizer: bindings.summarizer } : {}) }),
        estimator,
        ...(bindings.exactEstimator ? { exactEstimator: bindings.exactEstimator } : {}),
        traceSink,
        onStage: bindings.onStage,
        ...(profile.legacySystemPrompt === undefined ? {} : { legacySystemPrompt: profile.legacySystemPrompt }),
        ...(profile.maskStoredResults ? { stages: { composer: new DefaultContextMessageComposer({ maskStoredResults: true }) } } : {}),
      });
      const agent = new NativeAgent({
        state,
        assembler,
        client: bindings.model,
        registry: bindings.tools,
        outputStore: bindings.outputStore,
        deadline,
        inputCapTokens: frozen.budget.inputCapTokens,
        estimator,
        traceSink,
        scope,
        maxTurns: profile.maxTurns,
        maxToolCallsPerStep: profile.maxToolCallsPerStep,
        onEvent: input.onEvent,
      });
      const result = await agent.execute();
      return { ...result, version: version() };
    },
  };
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
