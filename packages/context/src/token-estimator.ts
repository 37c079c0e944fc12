import type { CanonicalMessage } from './messages.js';

/** Tokenizer families the built-in estimators know. `unknown` is the safest profile. */
export type TokenizerFamily = 'o200k' | 'cl100k' | 'unknown';

/** A tool as the model sees it: name, description and JSON-Schema parameters. */
export interface ToolSchema {
  readonly name: string;
  readonly description?: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/**
 * Counts tokens. The assembler charges everything it sends through this port,
 * so a provider can inject any estimator without the assembler changing.
 */
export interface TokenEstimator {
  /** The tokenizer family whose counts this estimator tracks. */
  readonly family: TokenizerFamily;
  /** True when counts are exact for `family`, not estimates. */
  readonly exact: boolean;
  countText(text: string): number;
  /** Text plus the per-message overhead of role and framing. */
  countMessage(message: CanonicalMessage): number;
  /** Name, description and schema plus the per-tool overhead. */
  countTool(tool: ToolSchema): number;
}
