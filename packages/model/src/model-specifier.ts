import { ModelConfigurationError } from './errors/model-configuration-error.js';

export type ModelProviderName = 'openai' | 'anthropic' | 'openai-compatible';

const MODEL_PROVIDERS: readonly ModelProviderName[] = Object.freeze(['anthropic', 'openai', 'openai-compatible']);

/** A parsed model string. */
export type ModelSpecifier =
  | { readonly provider: 'openai' | 'anthropic'; readonly modelId: string }
  | { readonly provider: 'openai-compatible'; readonly modelId: string; readonly baseURL: string };

/**
 * Parses `openai:gpt-4.1`, `anthropic:claude-sonnet-4-5` or
 * `openai-compatible:<base-url>#<model>` (`openai-compatible:http://localhost:11434/v1#llama3.1`).
 * Anything else is a `ModelConfigurationError` naming the model string
 * (`setting` is `setting`, default `model`).
 */
export function parseModelSpecifier(text: string, setting = 'model'): ModelSpecifier {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  if (colon <= 0 || colon === trimmed.length - 1) {
    throw new ModelConfigurationError({
      code: 'MODEL_SPECIFIER_MALFORMED',
      setting,
      message: `${setting} '${text}' is not a model string: expected <provider>:<model>, one of ${examples()}`,
    });
  }
  const provider = trimmed.slice(0, colon);
  const rest = trimmed.slice(colon + 1);
  if (provider === 'openai' || provider === 'anthropic') return { provider, modelId: rest };
  if (provider !== 'openai-compatible') {
    throw new ModelConfigurationError({
      code: 'MODEL_PROVIDER_UNKNOWN',
      setting,
      message: `${setting} '${text}' names the unknown provider '${provider}'; known providers: ${MODEL_PROVIDERS.join(', ')}`,
    });
  }
  const hash = rest.lastIndexOf('#');
  const baseURL = hash < 0 ? rest : rest.slice(0, hash);
  const modelId = hash < 0 ? '' : rest.slice(hash + 1);
  if (modelId.length === 0) {
    throw new ModelConfigurationError({
      code: 'MODEL_SPECIFIER_MALFORMED',
      setting,
      message: `${setting} '${text}' has no model name: expected openai-compatible:<base-url>#<model>`,
    });
  }
  return { provider, modelId, baseURL: checkedBaseURL(baseURL, setting) };
}

/** `value` when it is an absolute http(s) URL, else a `ModelConfigurationError` naming `setting`. */
export function checkedBaseURL(value: string, setting: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new ModelConfigurationError({ code: 'MODEL_BASE_URL_INVALID', setting, message: `${setting}: '${value}' is not an absolute URL`, cause });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelConfigurationError({ code: 'MODEL_BASE_URL_INVALID', setting, message: `${setting}: '${value}' must be an http or https URL` });
  }
  return value.replace(/\/+$/, '');
}

function examples(): string {
  return "'openai:gpt-4.1', 'anthropic:claude-sonnet-4-5', 'openai-compatible:http://localhost:11434/v1#llama3.1'";
}
