import { countCharacterClasses, type CharacterClassCounts } from './character-classes.js';
import type { CanonicalMessage } from './messages.js';
import { messageText } from './message-text.js';
import type { TokenEstimator, TokenizerFamily, ToolSchema } from './token-estimator.js';

/** Tokens per character of each class (per run for the run classes). */
export type CharacterClassWeights = Readonly<Omit<CharacterClassCounts, never>>;

/**
 * Per-family weights, fitted as a linear program on the real histories in
 * `shared/data` (alpaca zh/en, glaive zh/en, tau-bench, SWE-agent) so that no
 * message of 200+ characters and no whole conversation is under-counted,
 * then rounded up. They deliberately over-estimate: median over-count per
 * conversation is about 42% on that data.
 */
export const ESTIMATOR_PROFILES: Readonly<Record<TokenizerFamily, CharacterClassWeights>> = Object.freeze({
  o200k: Object.freeze({
    cjk: 1.0598, otherNonAscii: 1.371, astral: 4, letters: 0.1428, letterRuns: 0.7328,
    digits: 0.327, digitRuns: 3.3973, punctuation: 0.7352, spaces: 0.01, breaks: 0.8381,
  }),
  cl100k: Object.freeze({
    cjk: 1.6157, otherNonAscii: 1.9979, astral: 4, letters: 0.1446, letterRuns: 0.7204,
    digits: 0.3262, digitRuns: 3.7149, punctuation: 0.7692, spaces: 0.01, breaks: 0.8577,
  }),
  // The safest: the larger weight of the known families, class by class.
  unknown: Object.freeze({
    cjk: 1.6157, otherNonAscii: 1.9979, astral: 4, letters: 0.1446, letterRuns: 0.7328,
    digits: 0.327, digitRuns: 3.7149, punctuation: 0.7692, spaces: 0.01, breaks: 0.8577,
  }),
});

/** Role and framing tokens of one chat message (OpenAI charges 3, plus a name). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Framing of one tool call inside an assistant message. */
export const TOOL_CALL_OVERHEAD_TOKENS = 6;
/** Framing of one tool schema in the request's tool list. */
export const TOOL_SCHEMA_OVERHEAD_TOKENS = 12;

/** Counts `text` with the weights, never above the text's UTF-8 byte bound. */
export function estimateTextTokens(text: string, weights: CharacterClassWeights): number {
  const counts = countCharacterClasses(text);
  const estimate =
    counts.cjk * weights.cjk +
    counts.otherNonAscii * weights.otherNonAscii +
    counts.astral * weights.astral +
    counts.letters * weights.letters +
    counts.letterRuns * weights.letterRuns +
    counts.digits * weights.digits +
    counts.digitRuns * weights.digitRuns +
    counts.punctuation * weights.punctuation +
    counts.spaces * weights.spaces +
    counts.breaks * weights.breaks;
  // A byte-level BPE never emits more tokens than the text has UTF-8 bytes;
  // three bytes per BMP character outside ASCII bounds those bytes from above.
  const ascii = counts.letters + counts.digits + counts.punctuation + counts.spaces + counts.breaks;
  const byteBound = ascii + 3 * (counts.cjk + counts.otherNonAscii) + 4 * counts.astral;
  return Math.min(Math.ceil(estimate), byteBound);
}

/** Message framing plus the framing of each tool call. */
export function messageOverheadTokens(message: CanonicalMessage): number {
  const calls = message.role === 'assistant' ? message.toolCalls?.length ?? 0 : 0;
  return MESSAGE_OVERHEAD_TOKENS + calls * TOOL_CALL_OVERHEAD_TOKENS;
}

/** The text a tool schema costs: name, description and JSON parameters. */
export function toolSchemaText(tool: ToolSchema): string {
  return `${tool.name}\n${tool.description ?? ''}\n${JSON.stringify(tool.parameters)}`;
}

/**
 * Wraps a text counter with per-message caching: messages are immutable, so
 * a turn that appends one message counts only that message.
 */
export abstract class CachingTokenEstimator implements TokenEstimator {
  abstract readonly family: TokenizerFamily;
  abstract readonly exact: boolean;
  private readonly messageCache = new WeakMap<CanonicalMessage, number>();

  abstract countText(text: string): number;

  countMessage(message: CanonicalMessage): number {
    const cached = this.messageCache.get(message);
    if (cached !== undefined) return cached;
    const count = this.countText(messageText(message)) + messageOverheadTokens(message);
    this.messageCache.set(message, count);
    return count;
  }

  countTool(tool: ToolSchema): number {
    return this.countText(toolSchemaText(tool)) + TOOL_SCHEMA_OVERHEAD_TOKENS;
  }
}

/**
 * The fast default: counts by character class and deliberately over-estimates
 * mixed Chinese/English text, so a budget it approves fits the real tokenizer.
 */
export class ConservativeTokenEstimator extends CachingTokenEstimator {
  readonly family: TokenizerFamily;
  readonly exact = false;
  private readonly weights: CharacterClassWeights;

  constructor(options: { family?: TokenizerFamily } = {}) {
    super();
    this.family = options.family ?? 'unknown';
    this.weights = ESTIMATOR_PROFILES[this.family];
  }

  countText(text: string): number {
    return estimateTextTokens(text, this.weights);
  }
}
