import {
  ConservativeTokenEstimator,
  SYSTEM_TIMERS,
  TOOL_SCHEMA_OVERHEAD_TOKENS,
  estimateMediaTokens,
  messageOverheadTokens,
  messageText,
  tokenizerFamilyOf,
  toolSchemaText,
  withTimeout,
  type CanonicalMessage,
  type Timers,
  type TokenEstimator,
  type TokenizerFamily,
  type ToolSchema,
} from '@strata/context';
import { ModelConfigurationError } from './errors/model-configuration-error.js';

/** The providers whose count endpoints this counter calls. */
export type TokenCountProvider = 'openai' | 'anthropic' | 'gemini';

const PROVIDERS: Readonly<Record<TokenCountProvider, { baseURL: string; apiKeyName: string }>> = Object.freeze({
  openai: { baseURL: 'https://api.openai.com/v1', apiKeyName: 'OPENAI_API_KEY' },
  anthropic: { baseURL: 'https://api.anthropic.com/v1', apiKeyName: 'ANTHROPIC_API_KEY' },
  gemini: { baseURL: 'https://generativelanguage.googleapis.com/v1beta', apiKeyName: 'GEMINI_API_KEY' },
});

/**
 * Count endpoints that refused a key (401 or 403), for the rest of the
 * process: keyed by endpoint and key, the refusal's diagnostic message. A
 * refused key is not sent again by any counter of this process (no retry
 * storm against an endpoint that will answer the same).
 */
const REFUSED_KEYS = new Map<string, string>();

/** Thrown inside a count request the endpoint answered 401 or 403. */
class CountAuthenticationFailure extends Error {
  constructor(readonly status: number, answer: string) {
    super(`HTTP ${status}: ${answer}`);
  }
}

/** Default limit of one count request. */
export const TOKEN_COUNT_TIMEOUT_MS = 5_000;
/** Count requests in flight at once. */
const CONCURRENT_REQUESTS = 4;
/** Texts whose exact counts are kept (least recently counted dropped first). */
const TEXT_CACHE_ENTRIES = 4_096;

export interface ProviderTokenCounterOptions {
  readonly provider: TokenCountProvider;
  readonly model: string;
  readonly apiKey: string;
  /**
   * Where the key came from, named in the diagnostic when the endpoint
   * refuses it (never the key itself). Default: the provider's usual
   * environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY).
   */
  readonly apiKeyName?: string;
  /** Default: the provider's public API. */
  readonly baseURL?: string;
  /** Limit of each count request. Default `TOKEN_COUNT_TIMEOUT_MS`. */
  readonly timeoutMs?: number;
  readonly timers?: Timers;
  readonly fetch?: typeof globalThis.fetch;
  /** What counts text the provider has not counted. Default: the conservative estimator of the model's family. */
  readonly fallback?: TokenEstimator;
}

/**
 * A count that could not be had: the conservative estimate stands for it.
 * `TOKEN_COUNT_AUTH`: the endpoint refused the key (401 or 403); the
 * message names the key's variable, and the endpoint is not asked again
 * with that key in this process. `TOKEN_COUNT_FALLBACK`: any other failure
 * (HTTP error, timeout, unreachable, an answer without a count), asked again
 * at the next precount.
 */
export interface TokenCountDiagnostic {
  readonly code: 'TOKEN_COUNT_FALLBACK' | 'TOKEN_COUNT_AUTH';
  readonly provider: TokenCountProvider;
  readonly message: string;
}

export interface PrecountReport {
  /** Texts the provider counted in this call (those counted before are cached and not sent again). */
  readonly counted: number;
  /** Texts left to the conservative estimate, each with a diagnostic. */
  readonly fallbacks: number;
  readonly diagnostics: readonly TokenCountDiagnostic[];
}

export interface PrecountInput {
  readonly messages?: readonly CanonicalMessage[];
  readonly tools?: readonly ToolSchema[];
  /** Other text the turn sends (the rendered system prompt). */
  readonly texts?: readonly string[];
  readonly signal?: AbortSignal;
}

function configurationError(setting: string, message: string): ModelConfigurationError {
  return new ModelConfigurationError({ code: 'MODEL_OPTION_INVALID', setting, message });
}

/**
 * Exact counts from the provider's count endpoint (OpenAI's
 * `POST /responses/input_tokens`, Anthropic's `POST /messages/count_tokens`,
 * Gemini's `models/{model}:countTokens`), opt-in.
 *
 * The `TokenEstimator` port is synchronous and the endpoints are not, so
 * counting is two steps: `precount` (async) sends each text of a turn that
 * has no count yet, one request per text, and caches the answers (per
 * message object, and per text for tools and the system prompt); the
 * synchronous counts then read the cache. A text is counted as the only
 * user message of a request, less the framing of such a request (measured
 * once, with a one-character message); message framing is then charged as
 * every estimator charges it. Whatever has no count (not precounted, a
 * request failed, timed out or answered something else) is counted by the
 * fallback, the conservative estimate, which never under-counts; `precount`
 * says so with a diagnostic and never throws. An endpoint that refuses the
 * key (401, 403) is an authentication failure, not a transient one: the
 * diagnostic is `TOKEN_COUNT_AUTH`, naming the key's variable, and no
 * counter of the process sends that key to that endpoint again (every
 * later precount falls back at once, with the same diagnostic).
 *
 * Use it as a turn's exact counter: before assembling, `await
 * counter.precount({ messages, tools, texts: [system] })`, then pass it as
 * `exactEstimator`.
 */
export class ProviderTokenCounter implements TokenEstimator {
  readonly family: TokenizerFamily;
  /** Exact where precounted; the fallback's (conservative) estimate elsewhere. */
  readonly exact = true;
  readonly provider: TokenCountProvider;
  private readonly model: string;
  private readonly apiKey: string;
  private readonly apiKeyName: string;
  private readonly baseURL: string;
  private readonly timeoutMs: number;
  private readonly timers: Timers;
  private readonly fetch: typeof globalThis.fetch;
  private readonly fallback: TokenEstimator;
  private readonly textCounts = new Map<string, number>();
  private readonly messageCounts = new WeakMap<CanonicalMessage, number>();
  private framing: number | undefined;

  constructor(options: ProviderTokenCounterOptions) {
    if (options === null || typeof options !== 'object') throw configurationError('tokenCounter', 'ProviderTokenCounter takes an options object');
    if (!Object.hasOwn(PROVIDERS, options.provider)) throw configurationError('provider', `ProviderTokenCounter provider must be one of ${Object.keys(PROVIDERS).join(', ')}, got ${JSON.stringify(options.provider)}`);
    if (typeof options.model !== 'string' || options.model.trim() === '') throw configurationError('model', 'ProviderTokenCounter needs the model whose tokens it counts');
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw configurationError('apiKey', `ProviderTokenCounter needs an API key for ${options.provider}`);
    if (options.apiKeyName !== undefined && (typeof options.apiKeyName !== 'string' || options.apiKeyName.trim() === '')) {
      throw configurationError('apiKeyName', `ProviderTokenCounter apiKeyName must be a non-empty string, got ${JSON.stringify(options.apiKeyName)}`);
    }
    const timeoutMs = options.timeoutMs ?? TOKEN_COUNT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw configurationError('timeoutMs', `ProviderTokenCounter timeoutMs must be a positive integer, got ${String(options.timeoutMs)}`);
    let baseURL = options.baseURL ?? PROVIDERS[options.provider].baseURL;
    try {
      baseURL = new URL(baseURL).href.replace(/\/+$/, '');
    } catch {
      throw new ModelConfigurationError({ code: 'MODEL_BASE_URL_INVALID', setting: 'baseURL', message: `ProviderTokenCounter baseURL is not a URL: ${JSON.stringify(options.baseURL)}` });
    }
    this.provider = options.provider;
    this.model = options.model.trim();
    this.apiKey = options.apiKey;
    this.apiKeyName = options.apiKeyName?.trim() ?? PROVIDERS[options.provider].apiKeyName;
    this.baseURL = baseURL;
    this.timeoutMs = timeoutMs;
    this.timers = options.timers ?? SYSTEM_TIMERS;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.fallback = options.fallback ?? new ConservativeTokenEstimator({ family: tokenizerFamilyOf(this.model) });
    this.family = this.fallback.family;
  }

  countText(text: string): number {
    if (text.length === 0) return 0;
    return this.textCounts.get(text) ?? this.fallback.countText(text);
  }

  countMessage(message: CanonicalMessage): number {
    const counted = this.messageCounts.get(message);
    if (counted !== undefined) return counted;
    const text = messageText(message);
    const exact = text.length === 0 ? 0 : this.textCounts.get(text);
    if (exact === undefined) return this.fallback.countMessage(message);
    const media = message.role === 'user' || message.role === 'tool' ? message.media : undefined;
    const count = exact + messageOverheadTokens(message) + estimateMediaTokens(media);
    this.messageCounts.set(message, count);
    return count;
  }

  countTool(tool: ToolSchema): number {
    const exact = this.textCounts.get(toolSchemaText(tool));
    return exact === undefined ? this.fallback.countTool(tool) : exact + TOOL_SCHEMA_OVERHEAD_TOKENS;
  }

  /** Counts every text of `input` that has no count yet (see the class). Never throws; aborting `signal` ends it early. */
  async precount(input: PrecountInput): Promise<PrecountReport> {
    const signal = input?.signal ?? new AbortController().signal;
    const texts = new Set<string>();
    for (const message of input?.messages ?? []) if (!this.messageCounts.has(message)) texts.add(messageText(message));
    for (const tool of input?.tools ?? []) texts.add(toolSchemaText(tool));
    for (const text of input?.texts ?? []) if (typeof text === 'string') texts.add(text);
    const pending = [...texts].filter((text) => text.length > 0 && !this.textCounts.has(text));
    const diagnostics: TokenCountDiagnostic[] = [];
    if (pending.length === 0) return { counted: 0, fallbacks: 0, diagnostics };
    const refusedKey = `${this.baseURL}\n${this.apiKey}`;
    const refused = () => {
      const message = REFUSED_KEYS.get(refusedKey);
      if (message !== undefined && !diagnostics.some((diagnostic) => diagnostic.code === 'TOKEN_COUNT_AUTH')) diagnostics.push({ code: 'TOKEN_COUNT_AUTH', provider: this.provider, message });
      return message !== undefined;
    };
    const failed = (text: string | undefined, reason: unknown) => {
      if (reason instanceof CountAuthenticationFailure) {
        if (!REFUSED_KEYS.has(refusedKey)) {
          REFUSED_KEYS.set(refusedKey, `${this.provider}'s count endpoint refused the key in ${this.apiKeyName} (HTTP ${reason.status}): an authentication failure, not a transient one; it is not asked again in this process, and the conservative estimate stands (check ${this.apiKeyName})`);
        }
        refused();
        return;
      }
      const what = text === undefined ? 'the framing of a count request' : `a text of ${text.length} characters`;
      diagnostics.push({ code: 'TOKEN_COUNT_FALLBACK', provider: this.provider, message: `${this.provider} did not count ${what} (${reasonText(reason)}); the conservative estimate stands` });
    };
    if (refused()) return { counted: 0, fallbacks: pending.length, diagnostics };
    if (this.framing === undefined) {
      try {
        this.framing = Math.max(0, (await this.request('.', signal)) - 1);
      } catch (error) {
        failed(undefined, error);
        return { counted: 0, fallbacks: pending.length, diagnostics };
      }
    }
    const framing = this.framing;
    let counted = 0;
    let next = 0;
    const worker = async () => {
      // A refusal seen by one request stops every worker: the remaining texts are left to the estimate, unasked.
      while (next < pending.length && !REFUSED_KEYS.has(refusedKey)) {
        const text = pending[next++]!;
        try {
          this.remember(text, Math.max(0, (await this.request(text, signal)) - framing));
          counted += 1;
        } catch (error) {
          failed(text, error);
        }
      }
      if (next < pending.length) refused();
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_REQUESTS, pending.length) }, worker));
    return { counted, fallbacks: pending.length - counted, diagnostics };
  }

  private remember(text: string, count: number): void {
    if (this.textCounts.size >= TEXT_CACHE_ENTRIES) this.textCounts.delete(this.textCounts.keys().next().value!);
    this.textCounts.set(text, count);
  }

  /** The provider's count of a request whose only message is `text` from the user. */
  private async request(text: string, signal: AbortSignal): Promise<number> {
    return withTimeout({
      limitMs: this.timeoutMs,
      signal,
      timers: this.timers,
      run: async (requestSignal) => {
        const { url, headers, body, read } = this.wire(text);
        const response = await this.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: requestSignal });
        const answer = (await response.text().catch(() => '')).slice(0, 2_000);
        if (response.status === 401 || response.status === 403) throw new CountAuthenticationFailure(response.status, answer.slice(0, 200));
        if (!response.ok) throw new Error(`HTTP ${response.status}: ${answer.slice(0, 200)}`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(answer);
        } catch {
          throw new Error(`an answer that is not JSON: ${answer.slice(0, 200)}`);
        }
        const count = read(parsed);
        if (!Number.isInteger(count) || (count as number) < 0) throw new Error(`an answer without a token count: ${answer.slice(0, 200)}`);
        return count as number;
      },
    });
  }

  private wire(text: string): { url: string; headers: Record<string, string>; body: unknown; read: (answer: unknown) => unknown } {
    const field = (name: string) => (answer: unknown) => (answer !== null && typeof answer === 'object' ? (answer as Record<string, unknown>)[name] : undefined);
    switch (this.provider) {
      case 'openai':
        return { url: `${this.baseURL}/responses/input_tokens`, headers: { authorization: `Bearer ${this.apiKey}` }, body: { model: this.model, input: [{ role: 'user', content: text }] }, read: field('input_tokens') };
      case 'anthropic':
        return { url: `${this.baseURL}/messages/count_tokens`, headers: { 'x-api-key': this.apiKey, 'anthropic-version': '2023-06-01' }, body: { model: this.model, messages: [{ role: 'user', content: text }] }, read: field('input_tokens') };
      case 'gemini':
        return {
          url: `${this.baseURL}/models/${encodeURIComponent(this.model.replace(/^models\//, ''))}:countTokens`,
          headers: { 'x-goog-api-key': this.apiKey },
          body: { contents: [{ role: 'user', parts: [{ text }] }] },
          read: field('totalTokens'),
        };
    }
  }
}

function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
