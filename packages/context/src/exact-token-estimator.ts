import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import { ConfigurationError } from './errors/configuration-error.js';
import { BoundedCache } from './bounded-cache.js';
import { CachingTokenEstimator } from './conservative-token-estimator.js';
import type { TokenizerFamily } from './token-estimator.js';

type ExactFamily = Exclude<TokenizerFamily, 'unknown'>;

const ENCODERS: Record<ExactFamily, { countTokens(text: string, options?: object): number }> = { o200k, cl100k };

/** Special-token text in user data is counted as ordinary text, never rejected. */
const COUNT_OPTIONS = Object.freeze({ disallowedSpecial: new Set<string>() });

/**
 * Exact BPE counts through `gpt-tokenizer` (offline ranks), cached per
 * message. Slower than the conservative estimator on text it has not seen.
 */
export class ExactTokenEstimator extends CachingTokenEstimator {
  readonly family: ExactFamily;
  readonly exact = true;
  private readonly encoder: (typeof ENCODERS)[ExactFamily];

  constructor(options: { family: ExactFamily }) {
    super();
    this.family = options.family;
    this.encoder = ENCODERS[options.family];
  }

  /** Long texts that come back every turn (the rendered system prompt) are counted once. */
  private readonly textCache = new BoundedCache<string, number>(TEXT_CACHE_ENTRIES);

  countText(text: string): number {
    if (text.length < CACHED_TEXT_MIN_CHARS) return this.encoder.countTokens(text, COUNT_OPTIONS);
    let count = this.textCache.get(text);
    if (count === undefined) {
      count = this.encoder.countTokens(text, COUNT_OPTIONS);
      this.textCache.set(text, count);
    }
    return count;
  }
}

const CACHED_TEXT_MIN_CHARS = 256;
const TEXT_CACHE_ENTRIES = 64;

const ENCODING_FAMILIES: Readonly<Record<string, ExactFamily>> = { o200k_base: 'o200k', cl100k_base: 'cl100k', o200k: 'o200k', cl100k: 'cl100k' };

/**
 * The tokenizer family of an encoding or model name: `o200k_base`,
 * `gpt-4o`, `gpt-4.1`, `o3`, `gpt-4`, `gpt-3.5-turbo`, `text-embedding-3-small`.
 * `unknown` for models whose tokenizer is not public (Claude, Llama, ...).
 */
export function tokenizerFamilyOf(encodingOrModel: string): TokenizerFamily {
  const name = encodingOrModel.toLowerCase().replace(/^(openai|azure)[:/]/, '');
  const direct = ENCODING_FAMILIES[name];
  if (direct) return direct;
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss)/.test(name)) return 'o200k';
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada-002)/.test(name)) return 'cl100k';
  return 'unknown';
}

/** An exact estimator for an encoding or model name; a clear error when its tokenizer is not known. */
export function exactTokenEstimatorFor(encodingOrModel: string): ExactTokenEstimator {
  const family = tokenizerFamilyOf(encodingOrModel);
  if (family === 'unknown') {
    throw new ConfigurationError({ setting: 'tokenizer', message: `no exact tokenizer is known for "${encodingOrModel}"; use ConservativeTokenEstimator or inject a TokenEstimator` });
  }
  return new ExactTokenEstimator({ family });
}
