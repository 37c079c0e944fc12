import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APICallError } from '@ai-sdk/provider';
import { AuthenticationError } from './errors/authentication-error.js';
import { ContextOverflowError } from './errors/context-overflow-error.js';
import { ProviderError } from './errors/provider-error.js';
import { RateLimitError } from './errors/rate-limit-error.js';
import { TransientProviderError } from './errors/transient-provider-error.js';
import { normalizeProviderError, retryAfterOf } from './normalize-provider-error.js';

function apiError(statusCode: number | undefined, body: unknown, headers: Record<string, string> = {}, isRetryable = false): APICallError {
  const responseBody = typeof body === 'string' ? body : JSON.stringify(body);
  return new APICallError({ message: 'Bad Request', url: 'http://127.0.0.1/v1/chat/completions', requestBodyValues: {}, ...(statusCode === undefined ? {} : { statusCode }), responseHeaders: headers, responseBody, isRetryable });
}

const CASES: ReadonlyArray<readonly [string, unknown, string]> = [
  ['OpenAI context_length_exceeded', apiError(400, { error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }), 'ContextOverflowError'],
  ['OpenAI Responses window', apiError(400, { error: { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', type: 'invalid_request_error', code: 'context_length_exceeded' } }), 'ContextOverflowError'],
  ['Anthropic prompt too long', apiError(400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } }), 'ContextOverflowError'],
  ['Anthropic input + max_tokens', apiError(400, { type: 'error', error: { type: 'invalid_request_error', message: 'input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again' } }), 'ContextOverflowError'],
  ['Anthropic 413 request too large', apiError(413, { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } }), 'ContextOverflowError'],
  ['vLLM', apiError(400, { object: 'error', message: "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens.", type: 'BadRequestError', param: null, code: 400 }), 'ContextOverflowError'],
  ['Ollama', apiError(400, { error: { message: 'the input length exceeds the context length', type: 'api_error', param: null, code: null } }), 'ContextOverflowError'],
  ['llama.cpp in-stream', { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' }, 'ContextOverflowError'],
  ['Anthropic in-stream overflow', { type: 'invalid_request_error', message: 'prompt is too long: 1 tokens > 0 maximum' }, 'ContextOverflowError'],
  ['429', apiError(429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }), 'RateLimitError'],
  ['OpenAI TPM rate limit mentioning tokens', apiError(429, { error: { message: 'Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 50000.', type: 'tokens', code: 'rate_limit_exceeded' } }), 'RateLimitError'],
  ['Anthropic in-stream rate limit', { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' }, 'RateLimitError'],
  ['500', apiError(500, { error: { message: 'The server had an error', type: 'server_error' } }), 'TransientProviderError'],
  ['529 overloaded', apiError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), 'TransientProviderError'],
  ['408', apiError(408, 'timeout'), 'TransientProviderError'],
  ['connection refused (APICallError without status)', apiError(undefined, '', {}, true), 'TransientProviderError'],
  ['fetch failed', Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) }), 'TransientProviderError'],
  ['Anthropic in-stream overloaded', { type: 'overloaded_error', message: 'Overloaded' }, 'TransientProviderError'],
  ['401', apiError(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }), 'AuthenticationError'],
  ['401 typed api_error (not transient)', apiError(401, { error: { message: 'Invalid API key', type: 'api_error' } }), 'AuthenticationError'],
  ['403', apiError(403, { type: 'error', error: { type: 'permission_error', message: 'not allowed' } }), 'AuthenticationError'],
  ['Anthropic in-stream authentication_error', { type: 'authentication_error', message: 'invalid x-api-key' }, 'AuthenticationError'],
  ['404 model', apiError(404, { error: { message: 'The model `gpt-9` does not exist', type: 'invalid_request_error', code: 'model_not_found' } }), 'ProviderError'],
  ['400 bad schema', apiError(400, { error: { message: "Invalid schema for function 'x'", type: 'invalid_request_error', code: 'invalid_function_parameters' } }), 'ProviderError'],
  ['a plain string', 'something odd', 'ProviderError'],
];

for (const [label, error, expected] of CASES) {
  test(`normalizes ${label} to ${expected}`, () => {
    const normalized = normalizeProviderError({ error, provider: 'test.chat' });
    assert.equal(normalized.name, expected);
    assert.equal(normalized.kind, 'provider');
    assert.equal(normalized.provider, 'test.chat');
    assert.equal(normalized.cause, error);
    const checks = { ContextOverflowError, RateLimitError, TransientProviderError, AuthenticationError, ProviderError } as const;
    // An AuthenticationError is a ProviderError too (never retried, ends a run the same way).
    for (const [name, errorClass] of Object.entries(checks)) assert.equal(errorClass.isInstance(normalized), name === expected || (name === 'ProviderError' && expected === 'AuthenticationError'), `${name}.isInstance`);
  });
}

test('normalized errors pass through unchanged', () => {
  const error = new RateLimitError({ provider: 'x', message: 'slow down', retryAfterMs: 5 });
  assert.equal(normalizeProviderError({ error, provider: 'y' }), error);
});

test('retry hints: retry-after-ms wins, then retry-after seconds, then an HTTP date', () => {
  assert.equal(retryAfterOf({ 'retry-after-ms': '1500', 'retry-after': '9' }), 1500);
  assert.equal(retryAfterOf({ 'Retry-After': '2' }), 2000);
  assert.equal(retryAfterOf({ 'retry-after': 'soon' }), undefined);
  assert.equal(retryAfterOf({ 'retry-after': new Date(0).toUTCString() }), 0);
  assert.equal(retryAfterOf(undefined), undefined);
  const limited = normalizeProviderError({ error: apiError(429, {}, { 'retry-after': '7' }), provider: 'p' });
  assert.ok(RateLimitError.isInstance(limited));
  assert.equal(limited.retryAfterMs, 7000);
});
