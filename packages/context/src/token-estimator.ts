import type { CanonicalMessage } from './messages.js';

/**
 * Tokenizer families the built-in estimators know, one per tokenizer in
 * common use: OpenAI's `o200k` (`o200k_harmony` for gpt-oss) and `cl100k`;
 * `qwen` (Qwen 2.5 and 3); `deepseek` (V3, R1); `llama3` (Llama 3.x);
 * `llama2` (Llama 2 and Mistral's SentencePiece models); `gemma` (Gemma 2
 * and 3, and Gemini); `claude` (no public tokenizer for current models: a
 * profile with a margin); and `unknown`, the bound of all of them, for
 * every other model (GLM, Kimi, ...).
 */
export const TOKENIZER_FAMILIES = Object.freeze(['o200k', 'o200k_harmony', 'cl100k', 'qwen', 'deepseek', 'llama3', 'llama2', 'gemma', 'claude', 'unknown'] as const);

/** One of `TOKENIZER_FAMILIES`. `unknown` is the safest profile. */
export type TokenizerFamily = (typeof TOKENIZER_FAMILIES)[number];

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
  /**
   * For counters whose exact counts come from elsewhere (a provider's count
   * endpoint): fetches the counts of what a turn will send, so the
   * synchronous counts above can read them. The assembler awaits it before
   * each turn of an exact estimator that has it; it never throws (what it
   * could not count stays the conservative estimate).
   */
  precount?(request: PrecountRequest): Promise<unknown>;
}

/** What a turn will send, for `TokenEstimator.precount`. */
export interface PrecountRequest {
  readonly messages?: readonly CanonicalMessage[];
  readonly tools?: readonly ToolSchema[];
  readonly signal?: AbortSignal;
}
