import { SlotOrderBudgetPolicy } from './budget.js';
import { ContextAssembler, type ContextAssemblerOptions, type ContextStages, type TurnRequest } from './context-assembler.js';
import { sortToolsByName } from './context-candidate.js';
import { DefaultContextValidator } from './context-validator.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import type { TokenEstimator } from './token-estimator.js';
import { AtomicHistoryWindowPolicy } from './history-window.js';
import { DefaultContextMessageComposer } from './message-composer.js';
import type { ModelInput } from './model-input.js';
import { DeterministicSystemPromptRenderer } from './system-prompt-renderer.js';
import { ThresholdTokenPressurePolicy } from './token-pressure.js';

/**
 * The default stage of each kind, in pipeline order: the whole turn, readable
 * in one place. Around them the caller gives the contributor registry
 * (collect), an optional `HistoryCompactor` (compact; `DefaultHistoryCompactor`
 * is the usual one) and an optional `TraceSink` (trace).
 */
export function defaultContextStages(): ContextStages {
  return {
    budget: new SlotOrderBudgetPolicy(),
    renderer: new DeterministicSystemPromptRenderer(),
    pressure: new ThresholdTokenPressurePolicy(),
    composer: new DefaultContextMessageComposer(),
    windowPolicy: new AtomicHistoryWindowPolicy(),
    validator: new DefaultContextValidator(),
  };
}

/**
 * The legacy path: a fixed system prompt and the whole history, made valid
 * for providers (orphans as data, interrupted calls answered) but not
 * budgeted, windowed or contributed to.
 */
export function legacyModelInput(options: { systemPrompt?: string }): (request: TurnRequest) => ModelInput {
  const composer = new DefaultContextMessageComposer();
  return (request) => {
    const { history } = composer.compose({ history: request.history, messages: [], attachments: [] });
    const system = options.systemPrompt ? [{ role: 'system' as const, content: options.systemPrompt }] : [];
    return { messages: [...system, ...history], tools: sortToolsByName(request.tools) };
  };
}

export type CreateContextAssemblerOptions = Omit<ContextAssemblerOptions, 'stages' | 'estimator' | 'legacyInput'> &
  Partial<Pick<ContextAssemblerOptions, 'estimator' | 'legacyInput'>> & {
    readonly stages?: Partial<ContextStages>;
    /** The legacy path's system prompt when `legacyInput` is not given. */
    readonly legacySystemPrompt?: string;
  };

/** The fast counter when none is given: the conservative profile of the exact counter's family, else `unknown` (the bound of all families). */
export function defaultEstimator(exactEstimator: TokenEstimator | undefined): TokenEstimator {
  return new ConservativeTokenEstimator({ family: exactEstimator?.family ?? 'unknown' });
}

/** A ContextAssembler with every stage not given filled by its default, once. */
export function createContextAssembler(options: CreateContextAssemblerOptions): ContextAssembler {
  const { stages, legacySystemPrompt, ...rest } = options;
  return new ContextAssembler({
    ...rest,
    stages: { ...defaultContextStages(), ...definedStages(stages) },
    estimator: options.estimator ?? defaultEstimator(options.exactEstimator),
    legacyInput: options.legacyInput ?? legacyModelInput({ systemPrompt: legacySystemPrompt }),
  });
}

/** The stages the caller set: a stage given as `undefined` keeps its default. */
function definedStages(stages: Partial<ContextStages> | undefined): Partial<ContextStages> {
  return Object.fromEntries(Object.entries(stages ?? {}).filter(([, stage]) => stage !== undefined));
}
