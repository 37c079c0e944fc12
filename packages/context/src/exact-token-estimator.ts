import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import o200kHarmony from 'gpt-tokenizer/encoding/o200k_harmony';
import { ConfigurationError } from './errors/configuration-error.js';
import { BoundedCache } from './bounded-cache.js';
import { CachingTokenEstimator } from './conservative-token-estimator.js';
import type { TokenizerFamily } from './token-estimator.js';
import { tokenizerFamilyOf } from './tokenizer-family.js';

/** The families whose tokenizers ship with this package (gpt-tokenizer's offline ranks). */
export type BuiltInExactFamily = 'o200k' | 'o200k_harmony' | 'cl100k';

const ENCODERS: Readonly<Record<BuiltInExactFamily, { countTokens(text: string, options?: object): number }>> = Object.freeze({ o200k, o200k_harmony: o200kHarmony, cl100k });

/** True for the families `ExactTokenEstimator` counts; the others need an exact counter from outside (a tokenizer.json, a provider). */
export function hasBuiltInExactTokenizer(family: TokenizerFamily): family is BuiltInExactFamily {
  return Object.hasOwn(ENCODERS, family);
}

/** Special-token text in user data is counted as ordinary text, never rejected. */
const COUNT_OPTIONS = Object.freeze({ disallowedSpecial: new Set<string>() });

/**
 * Exact BPE counts through `gpt-tokenizer` (offline ranks), cached per
 * message. Slower than the conservative estimator on text it has not seen.
 */
export class ExactTokenEstimator extends CachingTokenEstimator {
  readonly family: BuiltInExactFamily;
  readonly exact = true;
  private readonly encoder: (typeof ENCODERS)[BuiltInExactFamily];

  constructor(options: { family: BuiltInExactFamily }) {
    super();
    if (!hasBuiltInExactTokenizer(options?.family)) {
      throw new ConfigurationError({ setting: 'family', message: `ExactTokenEstimator family must be one of ${Object.keys(ENCODERS).join(', ')}, got ${JSON.stringify(options?.family)}` });
    }
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

/** An exact estimator for an encoding or model name; a clear error when its tokenizer is not known. */
export function exactTokenEstimatorFor(encodingOrModel: string): ExactTokenEstimator {
  const family = tokenizerFamilyOf(encodingOrModel);
  if (!hasBuiltInExactTokenizer(family)) {
    throw new ConfigurationError({ setting: 'tokenizer', message: `no built-in exact tokenizer for "${encodingOrModel}" (family ${family}); use ConservativeTokenEstimator, an exact counter from @strata/model (a tokenizer.json or a provider's count endpoint), or inject a TokenEstimator` });
  }
  return new ExactTokenEstimator({ family });
}
