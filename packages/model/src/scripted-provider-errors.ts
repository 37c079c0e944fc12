import { APICallError } from '@ai-sdk/provider';

/**
 * Failures shaped like the real providers' (`APICallError` with the status,
 * headers and body the provider sends), for `ScriptedLanguageModel` turns.
 * The bodies follow each provider's documented error format.
 */

function apiCallError(options: { url: string; statusCode: number; body: unknown; message: string; headers?: Record<string, string> }): APICallError {
  return new APICallError({
    message: options.message,
    url: options.url,
    requestBodyValues: {},
    statusCode: options.statusCode,
    responseHeaders: { 'content-type': 'application/json', ...options.headers },
    responseBody: JSON.stringify(options.body),
    isRetryable: options.statusCode === 408 || options.statusCode === 409 || options.statusCode === 429 || options.statusCode >= 500,
    data: options.body,
  });
}

/** OpenAI's 400 `context_length_exceeded`. */
export function openAIOverflowError(options: { limitTokens?: number; requestedTokens?: number } = {}): APICallError {
  const limit = options.limitTokens ?? 128_000;
  const requested = options.requestedTokens ?? 130_000;
  const message = `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`;
  return apiCallError({
    url: 'https://api.openai.com/v1/chat/completions',
    statusCode: 400,
    message,
    body: { error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } },
  });
}

/** Anthropic's 400 `invalid_request_error`, "prompt is too long". */
export function anthropicOverflowError(options: { limitTokens?: number; requestedTokens?: number } = {}): APICallError {
  const message = `prompt is too long: ${options.requestedTokens ?? 210_000} tokens > ${options.limitTokens ?? 200_000} maximum`;
  return apiCallError({
    url: 'https://api.anthropic.com/v1/messages',
    statusCode: 400,
    message,
    body: { type: 'error', error: { type: 'invalid_request_error', message } },
  });
}

/** A 429 with an optional `retry-after` (seconds). */
export function rateLimitedError(options: { retryAfterSeconds?: number } = {}): APICallError {
  const message = 'Rate limit reached for requests';
  return apiCallError({
    url: 'https://api.openai.com/v1/chat/completions',
    statusCode: 429,
    message,
    body: { error: { message, type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    headers: options.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(options.retryAfterSeconds) },
  });
}

/** Anthropic's 529 `overloaded_error` (or another 5xx status). */
export function overloadedError(options: { statusCode?: number } = {}): APICallError {
  return apiCallError({
    url: 'https://api.anthropic.com/v1/messages',
    statusCode: options.statusCode ?? 529,
    message: 'Overloaded',
    body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  });
}

/** A 401 with an invalid key: neither transient nor an overflow. */
export function authenticationError(): APICallError {
  const message = 'Incorrect API key provided.';
  return apiCallError({
    url: 'https://api.openai.com/v1/chat/completions',
    statusCode: 401,
    message,
    body: { error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
  });
}
