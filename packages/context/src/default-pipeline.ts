import { AtomicHistoryWindowPolicy } from './history-window.js';
import { ContextAssembler, type ContextAssemblerOptions, type ContextStages, type TurnRequest } from './context-assembler.js';
import { ConservativeTokenEstimator } from './conservative-token-estimator.js';
import { DefaultContextMessageComposer } from './message-composer.js';
import { DefaultContextValidator } from './context-validator.js';
import { DeterministicSystemPromptRenderer } from './system-prompt-renderer.js';
import type { ModelInput } from './model-input.js';
import { sortToolsByName } from './context-fit.js';

/** The default stage of each kind: the whole pipeline, readable in one place. */
export function defaultContextStages(): ContextStages {
  return {
    renderer: new DeterministicSystemPromptRenderer(),
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

/** A ContextAssembler with every stage not given filled by its default, once. */
export function createContextAssembler(options: CreateContextAssemblerOptions): ContextAssembler {
  const { stages, legacySystemPrompt, ...rest } = options;
  return new ContextAssembler({
    ...rest,
    stages: { ...defaultContextStages(), ...stages },
    estimator: options.estimator ?? new ConservativeTokenEstimator({ family: options.exactEstimator?.family ?? 'unknown' }),
    legacyInput: options.legacyInput ?? legacyModelInput(legacySystemPrompt === undefined ? {} : { systemPrompt: legacySystemPrompt }),
  });
}
