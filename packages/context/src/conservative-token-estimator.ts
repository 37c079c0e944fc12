import { countCharacterClasses, type CharacterClassCounts } from './character-classes.js';
import type { CanonicalMessage, MediaPart } from './messages.js';
import { jsonText, messageText } from './message-text.js';
import type { TokenEstimator, TokenizerFamily, ToolSchema } from './token-estimator.js';

/** Tokens per character of each class (per run for the run classes). */
export type CharacterClassWeights = Readonly<CharacterClassCounts>;

/**
 * Per-family weights, fitted as a linear program on the real histories in
 * `shared/data` (alpaca zh/en, glaive zh/en, tau-bench, SWE-agent) so that no
 * message of 200+ characters and no whole conversation is under-counted,
 * then rounded up. Per-character weights have floors so that text unlike
 * that data (long runs of one class) is still over-counted rather than
 * missed. They deliberately over-estimate: the median over-count per
 * conversation is about 40% on that data.
 */
export const ESTIMATOR_PROFILES: Readonly<Record<TokenizerFamily, CharacterClassWeights>> = Object.freeze({
  o200k: Object.freeze({
    letters: 0.1178, letterRuns: 0.7952, digits: 0.3272, digitRuns: 3.6986,
    punctuation: 0.1545, punctuationRuns: 0.806, spaces: 0.0101, spaceRuns: 0.0001, breaks: 0.1001, breakRuns: 0.5757,
    cjk: 0.9376, cjkRuns: 1.4544, otherNonAscii: 0.6001, otherNonAsciiRuns: 0.1957, astral: 4,
  }),
  cl100k: Object.freeze({
    letters: 0.1261, letterRuns: 0.7604, digits: 0.3263, digitRuns: 3.9365,
    punctuation: 0.1501, punctuationRuns: 0.8674, spaces: 0.0101, spaceRuns: 0.0001, breaks: 0.1001, breakRuns: 0.5316,
    cjk: 1.5559, cjkRuns: 0.494, otherNonAscii: 0.8001, otherNonAsciiRuns: 1.1039, astral: 4,
  }),
  // The safest: the larger weight of the known families, class by class.
  unknown: Object.freeze({
    letters: 0.1261, letterRuns: 0.7952, digits: 0.3272, digitRuns: 3.9365,
    punctuation: 0.1545, punctuationRuns: 0.8674, spaces: 0.0101, spaceRuns: 0.0001, breaks: 0.1001, breakRuns: 0.5757,
    cjk: 1.5559, cjkRuns: 1.4544, otherNonAscii: 0.8001, otherNonAsciiRuns: 1.1039, astral: 4,
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
    counts.letters * weights.letters +
    counts.letterRuns * weights.letterRuns +
    counts.digits * weights.digits +
    counts.digitRuns * weights.digitRuns +
    counts.punctuation * weights.punctuation +
    counts.punctuationRuns * weights.punctuationRuns +
    counts.spaces * weights.spaces +
    counts.spaceRuns * weights.spaceRuns +
    counts.breaks * weights.breaks +
    counts.breakRuns * weights.breakRuns +
    counts.cjk * weights.cjk +
    counts.cjkRuns * weights.cjkRuns +
    counts.otherNonAscii * weights.otherNonAscii +
    counts.otherNonAsciiRuns * weights.otherNonAsciiRuns +
    counts.astral * weights.astral;
  // A byte-level BPE never emits more tokens than the text has UTF-8 bytes;
  // three bytes per BMP character outside ASCII bounds those bytes from above.
  const ascii = counts.letters + counts.digits + counts.punctuation + counts.spaces + counts.breaks;
  const byteBound = ascii + 3 * (counts.cjk + counts.otherNonAscii) + 4 * counts.astral;
  return Math.min(Math.ceil(estimate), byteBound);
}

/**
 * Tokens charged per image, whatever its size: Anthropic's cost of the
 * largest image it keeps unscaled (about 1.15 megapixels / 750), above
 * OpenAI's high-detail maximum for a 2048 x 768 image (85 + 8 x 170 = 1,445).
 */
export const IMAGE_TOKENS = 1_600;
/**
 * Tokens charged per byte of an inline file: a byte-level BPE never emits
 * more tokens than bytes, so this bounds text files. For compressed formats
 * (PDF) it is an estimate, not a bound.
 */
export const FILE_TOKENS_PER_BYTE = 1;
/** Tokens charged for a file given by URL, whose size is unknown here (an assumption: about 100 pages of text). */
export const URL_FILE_TOKENS = 32_000;

/** Decoded size of base64 data, from its length alone. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** What a message's images and files cost, conservatively (see the constants above). */
export function estimateMediaTokens(media: readonly MediaPart[] | undefined): number {
  let tokens = 0;
  for (const part of media ?? []) {
    if (part.type === 'image') tokens += IMAGE_TOKENS;
    else if (part.data !== undefined) tokens += Math.ceil(base64Bytes(part.data) * FILE_TOKENS_PER_BYTE);
    else tokens += URL_FILE_TOKENS;
  }
  return tokens;
}

/** Message framing plus the framing of each tool call. */
export function messageOverheadTokens(message: CanonicalMessage): number {
  const calls = message.role === 'assistant' ? message.toolCalls?.length ?? 0 : 0;
  return MESSAGE_OVERHEAD_TOKENS + calls * TOOL_CALL_OVERHEAD_TOKENS;
}

/** The text a tool schema costs: name, description and JSON parameters. */
export function toolSchemaText(tool: ToolSchema): string {
  return `${tool.name}\n${tool.description ?? ''}\n${jsonText(tool.parameters, `tool ${tool.name}.parameters`)}`;
}

/**
 * Wraps a text counter with per-message caching: messages are immutable, so
 * a turn that appends one message counts only that message. Media are
 * charged by `estimateMediaTokens`, for exact and conservative counters alike.
 */
export abstract class CachingTokenEstimator implements TokenEstimator {
  abstract readonly family: TokenizerFamily;
  abstract readonly exact: boolean;
  private readonly messageCache = new WeakMap<CanonicalMessage, number>();

  abstract countText(text: string): number;

  countMessage(message: CanonicalMessage): number {
    const cached = this.messageCache.get(message);
    if (cached !== undefined) return cached;
    const media = message.role === 'user' || message.role === 'tool' ? message.media : undefined;
    const count = this.countText(messageText(message)) + messageOverheadTokens(message) + estimateMediaTokens(media);
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
