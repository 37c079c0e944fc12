import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { createModelClient } from './create-model-client.js';
import type { ModelClientOptions } from './create-model-client.js';
import { ModelConfigurationError } from './errors/model-configuration-error.js';
import type { ModelClient } from './model-client.js';
import { checkedBaseURL, parseModelSpecifier } from './model-specifier.js';
import type { ModelSpecifier } from './model-specifier.js';
import { createProxyFetch, proxyOptionsFromEnvironment } from './proxy-fetch.js';

export type ModelEnvironment = Readonly<Record<string, string | undefined>>;

export interface LanguageModelOptions {
  /** A model string (`openai:gpt-4.1`) or a parsed one. */
  readonly model: string | ModelSpecifier;
  /**
   * Where keys, base URLs and proxy settings are read from: `OPENAI_API_KEY`,
   * `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`,
   * `OPENAI_COMPATIBLE_API_KEY`, `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`.
   * Default: `process.env`, read here and nowhere else.
   */
  readonly env?: ModelEnvironment;
  /** Wins over the key variable. */
  readonly apiKey?: string;
  /** Wins over the base-URL variable (and over the URL in an openai-compatible model string). */
  readonly baseURL?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** OpenAI protocol variant: chat completions (default) or the Responses API. */
  readonly openaiApi?: 'chat' | 'responses';
  /**
   * Proxy URL for all the provider's requests; `false` for none. Default:
   * `HTTP_PROXY` for http targets, `HTTPS_PROXY` for https ones (lower-case
   * forms too), except hosts `NO_PROXY` lists; no proxy when none is set.
   */
  readonly proxy?: string | false;
  /** A fetch of the caller's own; when set, no proxy is applied. */
  readonly fetch?: typeof globalThis.fetch;
}

/**
 * The AI SDK 6 language model a model string names, configured from explicit
 * options first and the environment record second. A malformed string, an
 * unknown provider, a missing key or an invalid URL is a
 * `ModelConfigurationError` naming the culprit, before any request.
 */
export function createLanguageModel(options: LanguageModelOptions): LanguageModelV3 {
  const env = options.env ?? process.env;
  const specifier = typeof options.model === 'string' ? parseModelSpecifier(options.model) : options.model;
  const label = typeof options.model === 'string' ? options.model : `${specifier.provider}:${specifier.modelId}`;

  switch (specifier.provider) {
    case 'openai': {
      const baseURL = baseURLOf(options.baseURL, env, 'OPENAI_BASE_URL') ?? 'https://api.openai.com/v1';
      const apiKey = requiredKey({ explicit: options.apiKey, env, variable: 'OPENAI_API_KEY', label, providerLabel: 'an OpenAI' });
      const provider = createOpenAI({ apiKey, baseURL, headers: options.headers, fetch: fetchFor(options, env) });
      return options.openaiApi === 'responses' ? provider.responses(specifier.modelId) : provider.chat(specifier.modelId);
    }
    case 'anthropic': {
      const baseURL = baseURLOf(options.baseURL, env, 'ANTHROPIC_BASE_URL') ?? 'https://api.anthropic.com/v1';
      const apiKey = requiredKey({ explicit: options.apiKey, env, variable: 'ANTHROPIC_API_KEY', label, providerLabel: 'an Anthropic' });
      return createAnthropic({ apiKey, baseURL, headers: options.headers, fetch: fetchFor(options, env) })(specifier.modelId);
    }
    case 'openai-compatible': {
      const baseURL = options.baseURL === undefined ? specifier.baseURL : checkedBaseURL(options.baseURL, 'baseURL');
      // Local servers (Ollama, LM Studio, vLLM) usually need no key.
      const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env.OPENAI_COMPATIBLE_API_KEY);
      const provider = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        includeUsage: true,
        apiKey,
        headers: options.headers,
        fetch: fetchFor(options, env),
      });
      return provider.chatModel(specifier.modelId);
    }
  }
}

/** `createModelClient` over `createLanguageModel`: one call from a model string to a client. */
export function createModelClientFromSpecifier(options: LanguageModelOptions & Omit<ModelClientOptions, 'model'>): ModelClient {
  const model = createLanguageModel(options);
  return createModelClient({ ...options, model, keyVariable: options.keyVariable ?? keyVariableOf(options) });
}

/** The variable each provider's key is read from (see `createLanguageModel`). */
const KEY_VARIABLES: Readonly<Record<ModelSpecifier['provider'], string>> = Object.freeze({ openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', 'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY' });

/** Where the model's key came from, as an authentication error names it: the option, else the provider's variable. */
function keyVariableOf(options: LanguageModelOptions): string {
  if (nonEmpty(options.apiKey) !== undefined) return 'the apiKey option';
  const specifier = typeof options.model === 'string' ? parseModelSpecifier(options.model) : options.model;
  return KEY_VARIABLES[specifier.provider];
}

function requiredKey(options: { explicit: string | undefined; env: ModelEnvironment; variable: string; label: string; providerLabel: string }): string {
  const key = nonEmpty(options.explicit) ?? nonEmpty(options.env[options.variable]);
  if (key === undefined) {
    throw new ModelConfigurationError({
      code: 'MODEL_API_KEY_MISSING',
      setting: options.variable,
      message: `${options.variable} is not set: model '${options.label}' needs ${options.providerLabel} API key (set ${options.variable} or pass apiKey)`,
    });
  }
  return key;
}

function baseURLOf(explicit: string | undefined, env: ModelEnvironment, variable: string): string | undefined {
  if (explicit !== undefined) return checkedBaseURL(explicit, 'baseURL');
  const fromEnv = nonEmpty(env[variable]);
  return fromEnv === undefined ? undefined : checkedBaseURL(fromEnv, variable);
}

/** The fetch the provider uses: the caller's own, a proxied one when a proxy is configured, else none (the default). */
function fetchFor(options: LanguageModelOptions, env: ModelEnvironment): typeof globalThis.fetch | undefined {
  if (options.fetch !== undefined) return options.fetch;
  if (options.proxy === false) return undefined;
  const proxy =
    options.proxy === undefined
      ? proxyOptionsFromEnvironment(env)
      : { httpProxy: { url: options.proxy, setting: 'proxy' }, httpsProxy: { url: options.proxy, setting: 'proxy' } };
  return proxy === undefined ? undefined : createProxyFetch(proxy);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim().length === 0 ? undefined : value;
}
