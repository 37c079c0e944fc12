import { SYSTEM_TIMERS, withTimeout, type Timers } from '@strata/context';
import { ModelConfigurationError } from './errors/model-configuration-error.js';

/**
 * Servers that say a model's window: Anthropic's Models API
 * (`GET /models/{id}`, `max_input_tokens`), an OpenAI-compatible server's
 * `GET /models` (vLLM's `max_model_len`, LM Studio's context length fields),
 * and Ollama's `POST /api/show` (the model's `<architecture>.context_length`
 * and the `num_ctx` it is configured to run with).
 */
export type WindowServer = 'anthropic' | 'openai-compatible' | 'ollama';

const WINDOW_SERVERS: readonly WindowServer[] = Object.freeze(['anthropic', 'openai-compatible', 'ollama']);

/** Default limit of one discovery request. */
export const WINDOW_DISCOVERY_TIMEOUT_MS = 5_000;

export interface WindowDiagnostic {
  readonly code: 'WINDOW_DISCOVERY_FAILED' | 'WINDOW_LARGER_THAN_SERVER' | 'WINDOW_OLLAMA_NUM_CTX_UNSET';
  readonly message: string;
}

export interface DiscoverWindowOptions {
  readonly server: WindowServer;
  /** The server's API root: `https://api.anthropic.com/v1`, `http://127.0.0.1:8000/v1`, `http://127.0.0.1:11434` (Ollama's, without `/v1`; a trailing `/v1` is dropped). */
  readonly baseURL: string;
  readonly model: string;
  readonly apiKey?: string;
  /**
   * The window the environment or configuration sets (`STRATA_MODEL_MAX_TOKENS`):
   * it wins over the server's, with a diagnostic when it is larger than what the server accepts.
   */
  readonly configuredTokens?: number;
  readonly timeoutMs?: number;
  readonly timers?: Timers;
  readonly fetch?: typeof globalThis.fetch;
  readonly signal?: AbortSignal;
}

export interface DiscoveredWindow {
  /** The window to use: the configured one when set, else the server's; undefined when neither is known. */
  readonly tokens: number | undefined;
  readonly source: 'configuration' | 'server' | 'none';
  /** What the server accepts, when it said (for Ollama: `num_ctx` when configured, else the model's own length). */
  readonly serverTokens: number | undefined;
  readonly diagnostics: readonly WindowDiagnostic[];
}

interface ServerAnswer {
  readonly tokens: number | undefined;
  readonly diagnostics: readonly WindowDiagnostic[];
}

function invalid(setting: string, message: string): ModelConfigurationError {
  return new ModelConfigurationError({ code: 'MODEL_OPTION_INVALID', setting, message });
}

const positive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined);

/**
 * Asks servers for model windows, once per server, base URL and model (an
 * answer is cached: a window does not change while a process runs; a
 * failure is not). Never throws for what a server does: a failure is a
 * diagnostic and an unknown window.
 */
export class ModelWindowDiscovery {
  private readonly cache = new Map<string, Promise<ServerAnswer>>();

  async discover(options: DiscoverWindowOptions): Promise<DiscoveredWindow> {
    if (options === null || typeof options !== 'object') throw invalid('window', 'discover takes an options object');
    if (!WINDOW_SERVERS.includes(options.server)) throw invalid('server', `the window server must be one of ${WINDOW_SERVERS.join(', ')}, got ${JSON.stringify(options.server)}`);
    if (typeof options.model !== 'string' || options.model.trim() === '') throw invalid('model', 'window discovery needs the model name');
    if (options.configuredTokens !== undefined && positive(options.configuredTokens) === undefined) throw invalid('configuredTokens', `configuredTokens must be a positive integer, got ${String(options.configuredTokens)}`);
    let baseURL: string;
    try {
      baseURL = new URL(options.baseURL).href.replace(/\/+$/, '');
    } catch {
      throw new ModelConfigurationError({ code: 'MODEL_BASE_URL_INVALID', setting: 'baseURL', message: `window discovery baseURL is not a URL: ${JSON.stringify(options.baseURL)}` });
    }
    const key = `${options.server} ${baseURL} ${options.model}`;
    let answer = this.cache.get(key);
    if (answer === undefined) {
      answer = ask({ ...options, baseURL });
      this.cache.set(key, answer);
    }
    const { tokens: serverTokens, diagnostics } = await answer;
    // A failure is asked again next time (the server may have been starting).
    if (diagnostics.some((diagnostic) => diagnostic.code === 'WINDOW_DISCOVERY_FAILED')) this.cache.delete(key);
    const configured = options.configuredTokens;
    if (configured === undefined) return { tokens: serverTokens, source: serverTokens === undefined ? 'none' : 'server', serverTokens, diagnostics };
    const larger: WindowDiagnostic[] =
      serverTokens !== undefined && configured > serverTokens
        ? [{ code: 'WINDOW_LARGER_THAN_SERVER', message: `the configured window (${configured} tokens) is larger than ${options.model} accepts on ${baseURL} (${serverTokens}): prompts past ${serverTokens} tokens will be refused or silently truncated` }]
        : [];
    return { tokens: configured, source: 'configuration', serverTokens, diagnostics: [...diagnostics, ...larger] };
  }
}

async function ask(options: DiscoverWindowOptions & { baseURL: string }): Promise<ServerAnswer> {
  const fetch = options.fetch ?? globalThis.fetch;
  const get = (url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown }) =>
    withTimeout({
      limitMs: options.timeoutMs ?? WINDOW_DISCOVERY_TIMEOUT_MS,
      signal: options.signal ?? new AbortController().signal,
      timers: options.timers ?? SYSTEM_TIMERS,
      run: async (signal) => {
        const response = await fetch(url, { method: init.method, headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers }, body: init.body === undefined ? undefined : JSON.stringify(init.body), signal });
        const text = await response.text();
        if (!response.ok) throw new Error(`HTTP ${response.status} from ${url}: ${text.slice(0, 200)}`);
        return JSON.parse(text) as unknown;
      },
    });
  const model = options.model.trim();
  try {
    if (options.server === 'anthropic') {
      const answer = (await get(`${options.baseURL}/models/${encodeURIComponent(model)}`, { method: 'GET', headers: { 'anthropic-version': '2023-06-01', ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}) } })) as Record<string, unknown>;
      return answered(positive(answer?.max_input_tokens), `Anthropic's Models API has no max_input_tokens for ${model}`);
    }
    if (options.server === 'openai-compatible') {
      const answer = (await get(`${options.baseURL}/models`, { method: 'GET', headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {} })) as { data?: Array<Record<string, unknown>> };
      const entry = (Array.isArray(answer?.data) ? answer.data : []).find((candidate) => candidate?.id === model);
      if (entry === undefined) return answered(undefined, `${options.baseURL}/models does not list ${model}`);
      // vLLM: max_model_len; LM Studio: loaded_context_length (what it runs with) before max_context_length.
      return answered(positive(entry.max_model_len) ?? positive(entry.loaded_context_length) ?? positive(entry.context_length) ?? positive(entry.max_context_length), `${options.baseURL}/models says no window for ${model}`);
    }
    const root = options.baseURL.replace(/\/v1$/, '');
    const answer = (await get(`${root}/api/show`, { method: 'POST', body: { model } })) as { model_info?: Record<string, unknown>; parameters?: unknown };
    const info = answer?.model_info ?? {};
    const architecture = info['general.architecture'];
    const modelLength = positive(typeof architecture === 'string' ? info[`${architecture}.context_length`] : undefined) ?? positive(Object.entries(info).find(([name]) => name.endsWith('.context_length'))?.[1]);
    const numCtx = typeof answer?.parameters === 'string' ? positive(Number(/^\s*num_ctx\s+(\d+)\s*$/m.exec(answer.parameters)?.[1])) : undefined;
    if (numCtx !== undefined) return { tokens: modelLength === undefined ? numCtx : Math.min(numCtx, modelLength), diagnostics: [] };
    const unset: WindowDiagnostic = {
      code: 'WINDOW_OLLAMA_NUM_CTX_UNSET',
      message: `${model} has no num_ctx on ${root}: Ollama then runs it with the server's default context length (OLLAMA_CONTEXT_LENGTH), not the model's ${modelLength ?? 'unknown'} tokens, and cuts longer prompts silently; set num_ctx (a Modelfile PARAMETER) or configure the window`,
    };
    return { tokens: modelLength, diagnostics: [unset] };
  } catch (error) {
    return { tokens: undefined, diagnostics: [{ code: 'WINDOW_DISCOVERY_FAILED', message: `${options.server} at ${options.baseURL} did not say the window of ${model}: ${error instanceof Error ? error.message : String(error)}` }] };
  }
}

function answered(tokens: number | undefined, missing: string): ServerAnswer {
  return tokens === undefined ? { tokens, diagnostics: [{ code: 'WINDOW_DISCOVERY_FAILED', message: missing }] } : { tokens, diagnostics: [] };
}
