import { createRequire } from 'node:module';
import { ConfigurationError } from './errors/configuration-error.js';
import { CachingTokenEstimator } from './conservative-token-estimator.js';
import { loadOptionalPeer } from './optional-peer.js';
import type { TokenizerFamily } from './token-estimator.js';
import { tokenizerFamilyOf } from './tokenizer-family.js';

/** The families `ExactTokenEstimator` counts with gpt-tokenizer's offline ranks (when gpt-tokenizer is installed). */
export type BuiltInExactFamily = 'o200k' | 'o200k_harmony' | 'cl100k';

interface Encoder {
  countTokens(text: string, options?: object): number;
}

/** gpt-tokenizer's module of each family's encoding. */
const ENCODING_MODULES: Readonly<Record<BuiltInExactFamily, string>> = Object.freeze({
  o200k: 'gpt-tokenizer/encoding/o200k_base',
  o200k_harmony: 'gpt-tokenizer/encoding/o200k_harmony',
  cl100k: 'gpt-tokenizer/encoding/cl100k_base',
});

/** The exact tokenizers' library: an optional peer dependency, loaded only when an exact counter is made. */
export const EXACT_TOKENIZER_PACKAGE = 'gpt-tokenizer';
const EXACT_TOKENIZER_PEER_RANGE = '^3.4.0';

const require = createRequire(import.meta.url);
const encoders = new Map<BuiltInExactFamily, Encoder>();
let installed: boolean | undefined;

/**
 * Whether gpt-tokenizer can be loaded (resolved once, without loading any
 * encoding). `resolve` is injectable for tests.
 */
export function exactTokenizerInstalled(resolve: (specifier: string) => unknown = require.resolve): boolean {
  if (resolve !== require.resolve) return canResolve(resolve);
  return (installed ??= canResolve(resolve));
}

function canResolve(resolve: (specifier: string) => unknown): boolean {
  try {
    resolve(ENCODING_MODULES.o200k);
    return true;
  } catch {
    return false;
  }
}

/**
 * The encoder of `family`, loaded the first time it is asked for, then kept.
 * Without gpt-tokenizer: a `ConfigurationError` naming the package to install.
 */
export function loadExactEncoder(family: BuiltInExactFamily, load: (specifier: string) => unknown = require): Encoder {
  const known = load === require ? encoders.get(family) : undefined;
  if (known !== undefined) return known;
  const encoder = loadOptionalPeer<Encoder>(
    { name: EXACT_TOKENIZER_PACKAGE, range: EXACT_TOKENIZER_PEER_RANGE, setting: 'tokenizer', neededBy: `exact token counting for ${family}` },
    () => load(ENCODING_MODULES[family]),
  );
  if (load === require) encoders.set(family, encoder);
  return encoder;
}

/**
 * True for the families `ExactTokenEstimator` counts here: an OpenAI encoding
 * (o200k, o200k_harmony, cl100k) with gpt-tokenizer installed. Without
 * gpt-tokenizer, false for every family, so a caller choosing a counter falls
 * back to the conservative estimate; the others need an exact counter from
 * outside (a tokenizer.json, a provider).
 */
export function hasBuiltInExactTokenizer(family: TokenizerFamily): family is BuiltInExactFamily {
  return Object.hasOwn(ENCODING_MODULES, family) && exactTokenizerInstalled();
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
  private readonly encoder: Encoder;

  /** Loads gpt-tokenizer's encoding of `family` (a `ConfigurationError` naming the package when it is not installed). */
  constructor(options: { family: BuiltInExactFamily }) {
    super();
    const family = (options as { family?: unknown } | null | undefined)?.family;
    if (typeof family !== 'string' || !Object.hasOwn(ENCODING_MODULES, family)) {
      throw new ConfigurationError({ setting: 'family', message: `ExactTokenEstimator family must be one of ${Object.keys(ENCODING_MODULES).join(', ')}, got ${JSON.stringify(family)}` });
    }
    this.family = family as BuiltInExactFamily;
    this.encoder = loadExactEncoder(this.family);
  }

  countText(text: string): number {
    return this.countLongTextOnce(text, (long) => this.encoder.countTokens(long, COUNT_OPTIONS));
  }
}

/** An exact estimator for an encoding or model name; a clear error when its tokenizer is not known. */
export function exactTokenEstimatorFor(encodingOrModel: string): ExactTokenEstimator {
  const family = tokenizerFamilyOf(encodingOrModel);
  if (!Object.hasOwn(ENCODING_MODULES, family)) {
    throw new ConfigurationError({ setting: 'tokenizer', message: `no built-in exact tokenizer for "${encodingOrModel}" (family ${family}); use ConservativeTokenEstimator, an exact counter from @strata/model (a tokenizer.json or a provider's count endpoint), or inject a TokenEstimator` });
  }
  return new ExactTokenEstimator({ family: family as BuiltInExactFamily });
}
