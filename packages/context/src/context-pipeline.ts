import type { ContextAssembler, ContextStageEvent } from './context-assembler.js';
import type { ContextConfiguration, ContextMode, ResolvedContextBudget } from './context-configuration.js';
import { DEFAULT_PRESSURE_PERCENT } from './context-configuration.js';
import type { ContextContributorFactory, ContextScope } from './contributor.js';
import { ContextContributorRegistry } from './contributor-registry.js';
import { createContextAssembler, defaultEstimator } from './default-pipeline.js';
import { DefaultHistoryCompactor, type HistoryCompactorOptions } from './default-history-compactor.js';
import { goalSnapshotFactory } from './goal-snapshot.js';
import { DefaultContextMessageComposer, type MessageComposerOptions } from './message-composer.js';
import type { Summarizer, ToolOutputStore, TraceSink } from './ports.js';
import type { Timers } from './timers.js';
import type { TokenEstimator } from './token-estimator.js';
import { withDefaults } from './with-defaults.js';

/**
 * Tools whose results the view never masks by default: a skill's body is
 * instructions, which a preview would silently cut (compaction may still
 * remove it, and the run's skill lane then says so).
 */
export const KEEP_WHOLE_TOOLS: readonly string[] = Object.freeze(['read_skill']);

/** Everything a run's context pipeline is made of; the same options for every caller. */
export interface ContextPipelineOptions {
  readonly contextId: string;
  readonly scope?: ContextScope;
  /** Resolved once per run (`resolveContextBudget`). */
  readonly budget: ResolvedContextBudget;
  /** Mode and compaction settings (pressure, retain, summary retries, preview size, message and round triggers); recorded in traces. */
  readonly configuration?: ContextConfiguration;
  /** Default: the configuration's mode, else `dynamic`. */
  readonly mode?: ContextMode;
  /** The caller's contributors (profile sections, lanes, deferred tools); frozen with the goal snapshot. */
  readonly contributors?: readonly ContextContributorFactory[];
  /**
   * The run's original request: with text, a protected goal snapshot
   * section of the run contract (bounded to half the system-prompt budget),
   * so the task survives any window and compaction. A function gives each
   * context's request, for a pipeline that serves many (a host loop).
   */
  readonly goal?: string | ((contextId: string) => string | undefined);
  /** Default: the conservative estimate for the exact counter's family (or `unknown`). */
  readonly estimator?: TokenEstimator;
  readonly exactEstimator?: TokenEstimator;
  /** Turns the oldest finished steps into a checkpoint under pressure; without one only bodies are projected. */
  readonly summarizer?: Summarizer;
  /** Compaction settings over the configuration's; `false`: window only, no compaction. */
  readonly compaction?: Omit<HistoryCompactorOptions, 'summarizer' | 'timers'> | false;
  /** The masked view of stored results. Default: the composer's (see `MessageComposerOptions`). */
  readonly maskStoredResults?: MessageComposerOptions['maskStoredResults'];
  /** Default `KEEP_WHOLE_TOOLS`. */
  readonly keepWholeTools?: readonly string[];
  readonly outputStore?: ToolOutputStore;
  readonly traceSink?: TraceSink;
  readonly onStage?: (event: ContextStageEvent) => void;
  readonly now?: () => number;
  readonly timers?: Timers;
  /** The legacy path's system prompt (modes legacy and shadow). */
  readonly legacySystemPrompt?: string;
}

export interface ContextPipeline {
  readonly assembler: ContextAssembler;
  /** The fast counter the assembler decides with (for checks outside it, such as step admission). */
  readonly estimator: TokenEstimator;
}

/**
 * The one composition root of a run's context pipeline: estimator,
 * compactor, composer, window, goal snapshot and settings, wired the same
 * for `createAgentRun`, the run service, the host-loop adapters and the
 * replay, so what a replay or a benchmark measures is what runs send.
 */
export function createContextPipeline(options: ContextPipelineOptions): ContextPipeline {
  const { budget, configuration } = options;
  const estimator = options.estimator ?? defaultEstimator(options.exactEstimator);
  const registry = new ContextContributorRegistry();
  const scope = options.scope ?? 'main';
  const goal =
    typeof options.goal === 'function' || options.goal?.trim() ? goalSnapshotFactory({ goal: options.goal, maxTokens: Math.floor(budget.systemPromptTokens / 2), estimator }) : undefined;
  for (const factory of [...(options.contributors ?? []), ...(goal ? [goal] : [])]) registry.registerFactory(factory, { contextId: options.contextId, scope });
  const compactor =
    options.compaction === false
      ? undefined
      : new DefaultHistoryCompactor({ ...withDefaults(compactorSettings(configuration), options.compaction), summarizer: options.summarizer, timers: options.timers });
  const assembler = createContextAssembler({
    registry,
    budget,
    outputStore: options.outputStore,
    mode: options.mode ?? configuration?.mode,
    configuration,
    compactor,
    estimator,
    exactEstimator: options.exactEstimator,
    traceSink: options.traceSink,
    onStage: options.onStage,
    now: options.now,
    timers: options.timers,
    legacySystemPrompt: options.legacySystemPrompt,
    stages: { composer: new DefaultContextMessageComposer({ maskStoredResults: options.maskStoredResults, keepWholeTools: options.keepWholeTools ?? KEEP_WHOLE_TOOLS }) },
  });
  return { assembler, estimator };
}

/**
 * The compaction settings of the configuration, as compactor options:
 * retain percent of the cap after compaction (as the share of the pressure
 * target freed beyond the need), summary retries, preview size (two thirds
 * head, one third tail), and the message and round triggers. Unset settings
 * are undefined and keep the compactor's defaults.
 */
export function compactorSettings(configuration: ContextConfiguration | undefined): Omit<HistoryCompactorOptions, 'summarizer'> {
  if (!configuration) return {};
  const pressure = configuration.compactionPressurePercent ?? DEFAULT_PRESSURE_PERCENT;
  const preview = configuration.toolPreviewChars;
  return {
    headroomShare: configuration.compactionRetainPercent === undefined ? undefined : 1 - configuration.compactionRetainPercent / pressure,
    summaryAttempts: configuration.summaryRetries === undefined ? undefined : configuration.summaryRetries + 1,
    preview: preview === undefined ? undefined : { headChars: Math.ceil((preview * 2) / 3), tailChars: Math.floor(preview / 3) },
    messageCountThreshold: configuration.windowMessages,
    roundCountThreshold: configuration.windowRounds,
  };
}
