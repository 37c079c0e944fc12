import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createModelClientFromSpecifier } from './create-language-model.js';
import { AuthenticationError } from './errors/authentication-error.js';
import { ProviderError } from './errors/provider-error.js';
import type { ModelEvent } from './model-client.js';
import { isRetryableModelError } from './normalize-provider-error.js';
import { startProviderServer, type CannedResponse } from './provider-test-server.js';

// A refused key is refused again on every retry: one request, then an error naming where the key came from.

const CASES: ReadonlyArray<{ label: string; model: (baseURL: string) => string; env: (baseURL: string) => Record<string, string>; response: CannedResponse; variable: RegExp; status: number }> = [
  {
    // The body a gateway in front of OpenAI sent: its `api_error` type once made this look transient.
    label: 'OpenAI 401 "Invalid API key" typed api_error',
    model: () => 'openai:gpt-4.1',
    env: (baseURL) => ({ OPENAI_API_KEY: 'sk-wrong', OPENAI_BASE_URL: baseURL }),
    response: { status: 401, json: { error: { message: 'Invalid API key', type: 'api_error', code: null } } },
    variable: /check OPENAI_API_KEY$/,
    status: 401,
  },
  {
    label: 'OpenAI 401 invalid_api_key',
    model: () => 'openai:gpt-4.1',
    env: (baseURL) => ({ OPENAI_API_KEY: 'sk-wrong', OPENAI_BASE_URL: baseURL }),
    response: { status: 401, json: { error: { message: 'Incorrect API key provided: sk-****ong.', type: 'invalid_request_error', code: 'invalid_api_key' } } },
    variable: /check OPENAI_API_KEY$/,
    status: 401,
  },
  {
    label: 'Anthropic 401 authentication_error',
    model: () => 'anthropic:claude-sonnet-4-5',
    env: (baseURL) => ({ ANTHROPIC_API_KEY: 'sk-ant-wrong', ANTHROPIC_BASE_URL: baseURL }),
    response: { status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } },
    variable: /check ANTHROPIC_API_KEY$/,
    status: 401,
  },
  {
    label: 'Anthropic 403 permission_error',
    model: () => 'anthropic:claude-sonnet-4-5',
    env: (baseURL) => ({ ANTHROPIC_API_KEY: 'sk-ant-limited', ANTHROPIC_BASE_URL: baseURL }),
    response: { status: 403, json: { type: 'error', error: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' } } },
    variable: /the key may not do this: .*check ANTHROPIC_API_KEY$/,
    status: 403,
  },
  {
    label: 'OpenAI-compatible 401 plain text',
    model: (baseURL) => `openai-compatible:${baseURL}#llama3.1`,
    env: () => ({}),
    response: { status: 401, json: 'Invalid API key' },
    variable: /check OPENAI_COMPATIBLE_API_KEY$/,
    status: 401,
  },
];

for (const { label, model, env, response, variable, status } of CASES) {
  test(`${label}: fails at once, one request, an AuthenticationError naming the key's variable`, async () => {
    const server = await startProviderServer([response, response, response, response]);
    try {
      const waits: number[] = [];
      const client = createModelClientFromSpecifier({ model: model(server.baseURL), env: env(server.baseURL), retry: { maxAttempts: 4 }, sleep: async (delayMs) => void waits.push(delayMs) });
      const events: ModelEvent[] = [];
      for await (const event of client.stream({ messages: [{ role: 'user', content: 'hello' }] })) events.push(event);
      assert.equal(server.requests.length, 1, 'exactly one request');
      assert.deepEqual(waits, []);
      assert.deepEqual(events.filter((event) => event.type === 'retry'), []);
      const end = events.at(-1);
      assert.ok(end?.type === 'error', `ended with ${end?.type}`);
      assert.ok(AuthenticationError.isInstance(end.error), `${end.error.name}: ${end.error.message}`);
      assert.ok(ProviderError.isInstance(end.error), 'an AuthenticationError is a ProviderError');
      assert.equal(isRetryableModelError(end.error), false);
      assert.equal(end.error.statusCode, status);
      assert.equal(end.error.kind, 'provider');
      assert.match(end.error.message, /authentication failed \(HTTP 40[13]\)/);
      assert.match(end.error.message, variable);
      assert.doesNotMatch(end.error.message, /sk-wrong|sk-ant/, 'the key itself is not in the message');
    } finally {
      await server.close();
    }
  });
}

test('a key passed as apiKey: the message names the option, not a variable', async () => {
  const response: CannedResponse = { status: 401, json: { error: { message: 'Invalid API key', type: 'invalid_request_error', code: 'invalid_api_key' } } };
  const server = await startProviderServer([response, response]);
  try {
    const client = createModelClientFromSpecifier({ model: 'openai:gpt-4.1', apiKey: 'sk-given', baseURL: server.baseURL, env: { OPENAI_API_KEY: 'sk-env' }, sleep: async () => undefined });
    const events: ModelEvent[] = [];
    for await (const event of client.stream({ messages: [{ role: 'user', content: 'hello' }] })) events.push(event);
    const end = events.at(-1);
    assert.ok(end?.type === 'error' && AuthenticationError.isInstance(end.error));
    assert.equal(end.error.keyVariable, 'the apiKey option');
    assert.match(end.error.message, /check the apiKey option$/);
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});
