import type { PresetGeneration } from './preset.js';
import type { WorkerMessage } from './worker-message.js';

export interface WorkerModelRequest {
  /** The assembled worker prompt, exactly as the contract built it. */
  readonly messages: readonly WorkerMessage[];
  /** The preset's generation parameters; the adapter honours what its provider supports. */
  readonly generation: PresetGeneration;
  readonly signal: AbortSignal;
}

/**
 * The model port `run_worker` consumes: one completion of a worker prompt.
 * A failure throws; the caller turns it into a tool error result. Adapt the
 * model client of `@strata/model` to it.
 */
export interface WorkerModel {
  generate(request: WorkerModelRequest): Promise<{ readonly text: string }>;
}
