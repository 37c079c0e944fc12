import { APICallError } from '@ai-sdk/provider';
import { AuthenticationError } from './errors/authentication-error.js';
import { ContextOverflowError } from './errors/context-overflow-error.js';
import { ProviderError } from './errors/provider-error.js';
import { RateLimitError } from './errors/rate-limit-error.js';
import { TransientProviderError } from './errors/transient-provider-error.js';

/** A failure of one model call, as the adapter reports it. */
export type ModelCallError = ContextOverflowError | RateLimitError | TransientProviderError | AuthenticationError | ProviderError;

/**
 * Overflow wordings, lower-cased: OpenAI (`context_length_exceeded`, "maximum
 * context length", Responses "exceeds the context window"), Anthropic
 * ("prompt is too long", "input length and `max_tokens` exceed context
 * limit"), vLLM (the OpenAI wording), llama.cpp and Ollama ("exceeds the
 * available context size", "input length exceeds the context length"),
 * LM Studio ("greater than the context length", "context length of only").
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = Object.freeze([
  /context_length_exceeded/,
  /maximum context length/,
  /prompt is too long/,
  /exceeds? (the )?context (window|limit)/,
  /exceeds? (the )?(available |model'?s? )?context (size|length)/,
  /exceed_context_size/,
  /input length exceeds/,
  /greater than the context length/,
  /context length of only/,
  /reduce the length of the messages/,
  /request_too_large/,
]);

const TRANSIENT_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET']);

interface FailureFacts {
  message: string;
  statusCode: number | undefined;
  responseBody: string | undefined;
  headers: Readonly<Record<string, string>> | undefined;
  /** Provider error `type` / `code` fields, lower-cased. */
  discriminator: string;
  /** No response at all (connection failed). */
  network: boolean;
}

/** Provider error types that say the key was refused, whatever the status (an in-stream error part has none). */
const AUTHENTICATION_TYPES = /authentication_error|permission_error|invalid_api_key|permission_denied|unauthenticated/;

/**
 * Maps any failure of a model call to one typed error. Decision order:
 * 401, 403 or an authentication type is an `AuthenticationError` (never
 * retried, whatever else the body says: a proxy's 401 may call itself an
 * `api_error`); 429 or a rate-limit type is a rate limit; an overflow wording is an
 * overflow; 408, 409, 5xx, 529, an `overloaded` type or no response at all is
 * transient; anything else is a `ProviderError`. Strata errors pass through.
 */
export function normalizeProviderError(options: {
  error: unknown;
  provider: string;
  /** Where the key came from (`OPENAI_API_KEY`), named in an authentication error's message. Default: not named. */
  keyVariable?: string;
}): ModelCallError {
  const { error, provider } = options;
  if (ContextOverflowError.isInstance(error) || RateLimitError.isInstance(error) || TransientProviderError.isInstance(error) || ProviderError.isInstance(error)) {
    return error;
  }
  const facts = factsOf(error);
  const details = { provider, statusCode: facts.statusCode, responseBody: facts.responseBody, cause: error };
  const retryAfterMs = retryAfterOf(facts.headers);
  const overflowText = `${facts.message}\n${facts.responseBody ?? ''}\n${facts.discriminator}`.toLowerCase();

  if (facts.statusCode === 401 || facts.statusCode === 403 || AUTHENTICATION_TYPES.test(facts.discriminator)) {
    const refused = facts.statusCode === 403 ? 'the key may not do this' : 'the key was refused';
    const check = options.keyVariable === undefined ? '' : `; check ${options.keyVariable}`;
    const status = facts.statusCode === undefined ? '' : ` (HTTP ${facts.statusCode})`;
    return new AuthenticationError({ ...details, keyVariable: options.keyVariable, message: `${provider}: authentication failed${status}, ${refused}: ${facts.message}${check}` });
  }
  if (facts.statusCode === 429 || /rate_limit|insufficient_quota/.test(facts.discriminator)) {
    return new RateLimitError({ ...details, message: `${provider}: rate limited: ${facts.message}`, retryAfterMs });
  }
  if (OVERFLOW_PATTERNS.some((pattern) => pattern.test(overflowText)) || facts.statusCode === 413) {
    return new ContextOverflowError({ ...details, message: `${provider}: context window exceeded: ${facts.message}`, ...overflowFigures(overflowText) });
  }
  const status = facts.statusCode;
  if (facts.network || status === 408 || status === 409 || (status !== undefined && status >= 500) || /overloaded|api_error|server_error|timeout/.test(facts.discriminator)) {
    return new TransientProviderError({ ...details, message: `${provider}: transient failure: ${facts.message}`, retryAfterMs });
  }
  return new ProviderError({ ...details, message: `${provider}: ${facts.message}` });
}

function factsOf(error: unknown): FailureFacts {
  if (APICallError.isInstance(error)) {
    return {
      message: error.message,
      statusCode: error.statusCode,
      responseBody: error.responseBody,
      headers: error.responseHeaders,
      discriminator: discriminatorOf(error.data ?? parseJson(error.responseBody)),
      network: error.statusCode === undefined && error.isRetryable,
    };
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
    const network = (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) || /fetch failed|failed to fetch|socket hang up/i.test(error.message);
    return { message: error.message, statusCode: undefined, responseBody: undefined, headers: undefined, discriminator: typeof code === 'string' ? code.toLowerCase() : '', network };
  }
  if (typeof error === 'object' && error !== null) {
    // An error part inside a stream: the provider's own error object.
    const record = error as Record<string, unknown>;
    const inner = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : record;
    const message = typeof inner.message === 'string' ? inner.message : JSON.stringify(error);
    const numericCode = typeof inner.code === 'number' ? inner.code : typeof inner.code === 'string' && /^\d{3}$/.test(inner.code) ? Number(inner.code) : undefined;
    return { message, statusCode: numericCode, responseBody: JSON.stringify(error), headers: undefined, discriminator: discriminatorOf(error), network: false };
  }
  return { message: String(error), statusCode: undefined, responseBody: undefined, headers: undefined, discriminator: '', network: false };
}

/** `type` and `code` of a provider error body (`{error: {...}}` or flat), lower-cased. */
function discriminatorOf(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const record = body as Record<string, unknown>;
  const inner = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : record;
  return [inner.type, inner.code]
    .filter((value) => typeof value === 'string' || typeof value === 'number')
    .join(' ')
    .toLowerCase();
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The provider's retry hint in milliseconds: `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export function retryAfterOf(headers: Readonly<Record<string, string>> | undefined): number | undefined {
  if (headers === undefined) return undefined;
  const lookup = (name: string): string | undefined => {
    for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
    return undefined;
  };
  const milliseconds = lookup('retry-after-ms');
  if (milliseconds !== undefined && Number.isFinite(Number.parseFloat(milliseconds))) {
    return Math.max(0, Number.parseFloat(milliseconds));
  }
  const after = lookup('retry-after');
  if (after === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Math.max(0, Number.parseFloat(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Token figures from an overflow message. OpenAI: "maximum context length
 * is 128000 tokens. However, your messages resulted in 130000 tokens";
 * Anthropic: "prompt is too long: 210000 tokens > 200000 maximum".
 */
function overflowFigures(text: string): { requestedTokens?: number; limitTokens?: number } {
  const anthropic = /(\d[\d,]*) tokens? > (\d[\d,]*) maximum/.exec(text);
  if (anthropic?.[1] !== undefined && anthropic[2] !== undefined) {
    return { requestedTokens: toNumber(anthropic[1]), limitTokens: toNumber(anthropic[2]) };
  }
  const limit = /maximum context length is (\d[\d,]*)/.exec(text)?.[1];
  const requested = /(?:resulted in|requested|you requested) (\d[\d,]*) tokens/.exec(text)?.[1];
  return { limitTokens: toNumber(limit), requestedTokens: toNumber(requested) };
}

function toNumber(digits: string | undefined): number | undefined {
  return digits === undefined ? undefined : Number(digits.replaceAll(',', ''));
}

/** True for errors the client retries: rate limits and transient failures (never an authentication error). */
export function isRetryableModelError(error: unknown): error is RateLimitError | TransientProviderError {
  return RateLimitError.isInstance(error) || TransientProviderError.isInstance(error);
}

