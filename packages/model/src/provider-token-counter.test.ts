import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConservativeTokenEstimator, ContextContributorRegistry, createContextAssembler, messageText, resolveContextBudget, type CanonicalMessage } from '@strata/context';
import { manualTimers } from '@strata/testing';
import { ModelConfigurationError } from './errors/model-configuration-error.js';
import { ProviderTokenCounter, type TokenCountProvider } from './provider-token-counter.js';

/** Every count request's framing, as the fakes below charge it. */
const FRAMING = 7;

interface CountRequest {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** The text of a count request, as each provider's wire carries it. */
function requestText(provider: TokenCountProvider, body: Record<string, unknown>): string {
  if (provider === 'openai') return (body.input as Array<{ content: string }>)[0]!.content;
  if (provider === 'anthropic') return (body.messages as Array<{ content: string }>)[0]!.content;
  return (body.contents as Array<{ parts: Array<{ text: string }> }>)[0]!.parts[0]!.text;
}

/**
 * A count endpoint on 127.0.0.1 that counts one token per character plus
 * FRAMING, in the provider's answer shape; `answer` overrides an answer
 * (a status and body, or 'hold' to never answer).
 */
async function startCountServer(provider: TokenCountProvider, answer?: (text: string, index: number) => { status: number; body: string } | 'hold' | undefined) {
  const requests: CountRequest[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      requests.push({ url: incoming.url ?? '', headers: incoming.headers, body });
      const text = requestText(provider, body);
      const override = answer?.(text, requests.length - 1);
      if (override === 'hold') {
        held.push(outgoing);
        return;
      }
      const count = text.length + FRAMING;
      const json = provider === 'gemini' ? { totalTokens: count } : provider === 'openai' ? { object: 'response.input_tokens', input_tokens: count } : { input_tokens: count };
      const { status, body: text_ } = override ?? { status: 200, body: JSON.stringify(json) };
      outgoing.writeHead(status, { 'content-type': 'application/json' }).end(text_);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const close = async () => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { baseURL, requests, close };
}

const MESSAGES: readonly CanonicalMessage[] = [
  { role: 'user', content: 'Summarise the log: 1234567890 9876543210 3.14159265358979' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', input: { path: 'logs/app.log' } }] },
  { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: '2024-01-01T00:00:00Z ERROR 0xdeadbeef 中文日志' },
];

const EXPECTED_PATHS: Record<TokenCountProvider, string> = {
  openai: '/v1/responses/input_tokens',
  anthropic: '/v1/messages/count_tokens',
  gemini: '/v1/models/gemini-2.5-flash:countTokens',
};
const MODELS: Record<TokenCountProvider, string> = { openai: 'gpt-4.1', anthropic: 'claude-sonnet-4-5', gemini: 'models/gemini-2.5-flash' };

for (const provider of ['openai', 'anthropic', 'gemini'] as const) {
  test(`${provider}: precounted messages count as the endpoint counts them, less a request's framing, plus the usual message framing`, async () => {
    const server = await startCountServer(provider);
    try {
      const counter = new ProviderTokenCounter({ provider, model: MODELS[provider], apiKey: 'test-key', baseURL: server.baseURL });
      const conservative = new ConservativeTokenEstimator({ family: counter.family });
      const report = await counter.precount({ messages: MESSAGES, tools: [{ name: 'read_file', description: 'Reads a file', parameters: { type: 'object' } }], texts: ['You are a careful agent.'] });
      assert.deepEqual(report, { counted: 5, fallbacks: 0, diagnostics: [] });
      for (const message of MESSAGES) {
        const text = messageText(message);
        assert.equal(counter.countText(text), text.length);
        assert.equal(counter.countMessage(message), text.length + (conservative.countMessage(message) - conservative.countText(text)));
      }
      assert.equal(counter.countText('You are a careful agent.'), 'You are a careful agent.'.length);
      // The wire: each provider's path, key header and body shape.
      const first = server.requests[0]!;
      assert.equal(first.url, EXPECTED_PATHS[provider]);
      if (provider === 'openai') assert.equal(first.headers.authorization, 'Bearer test-key');
      if (provider === 'anthropic') assert.deepEqual([first.headers['x-api-key'], first.headers['anthropic-version']], ['test-key', '2023-06-01']);
      if (provider === 'gemini') assert.equal(first.headers['x-goog-api-key'], 'test-key');
      if (provider !== 'gemini') assert.equal(first.body.model, MODELS[provider]);
      // Cached: the same messages again send nothing.
      const before = server.requests.length;
      assert.deepEqual(await counter.precount({ messages: MESSAGES }), { counted: 0, fallbacks: 0, diagnostics: [] });
      assert.equal(server.requests.length, before);
    } finally {
      await server.close();
    }
  });
}

test('a failed, malformed or wrong answer leaves the conservative estimate, with a diagnostic, and is asked again next time', async () => {
  const bad = new Map([
    [messageText(MESSAGES[0]!), { status: 500, body: '{"error":{"message":"overloaded"}}' }],
    [messageText(MESSAGES[1]!), { status: 200, body: 'not json' }],
    [messageText(MESSAGES[2]!), { status: 200, body: '{"input_tokens":-3}' }],
  ]);
  let failing = true;
  const server = await startCountServer('anthropic', (text) => (failing ? bad.get(text) : undefined));
  try {
    const counter = new ProviderTokenCounter({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'k', baseURL: server.baseURL });
    const conservative = new ConservativeTokenEstimator({ family: 'claude' });
    const report = await counter.precount({ messages: MESSAGES });
    assert.equal(report.counted, 0);
    assert.equal(report.fallbacks, 3);
    assert.deepEqual(report.diagnostics.map((diagnostic) => diagnostic.code), ['TOKEN_COUNT_FALLBACK', 'TOKEN_COUNT_FALLBACK', 'TOKEN_COUNT_FALLBACK']);
    assert.ok(report.diagnostics.some((diagnostic) => /HTTP 500/.test(diagnostic.message)));
    assert.ok(report.diagnostics.some((diagnostic) => /not JSON/.test(diagnostic.message)));
    assert.ok(report.diagnostics.some((diagnostic) => /without a token count/.test(diagnostic.message)));
    for (const message of MESSAGES) assert.equal(counter.countMessage(message), conservative.countMessage(message));
    failing = false;
    assert.deepEqual(await counter.precount({ messages: MESSAGES }), { counted: 3, fallbacks: 0, diagnostics: [] });
    assert.equal(counter.countText(messageText(MESSAGES[0]!)), messageText(MESSAGES[0]!).length);
  } finally {
    await server.close();
  }
});

test('a 401 is an authentication failure: the estimate stands, TOKEN_COUNT_AUTH names the key variable, and the endpoint is not asked again in the process', async () => {
  const server = await startCountServer('openai', () => ({ status: 401, body: '{"error":{"message":"Incorrect API key provided"}}' }));
  try {
    const options = { provider: 'openai', model: 'gpt-4.1', apiKey: 'revoked-key-401', baseURL: server.baseURL } as const;
    const counter = new ProviderTokenCounter(options);
    const conservative = new ConservativeTokenEstimator({ family: 'o200k' });
    const report = await counter.precount({ messages: MESSAGES, texts: ['You are a careful agent.'] });
    assert.equal(report.counted, 0);
    assert.equal(report.fallbacks, 4);
    assert.deepEqual(report.diagnostics.map((diagnostic) => diagnostic.code), ['TOKEN_COUNT_AUTH']);
    assert.match(report.diagnostics[0]!.message, /OPENAI_API_KEY/);
    assert.match(report.diagnostics[0]!.message, /HTTP 401/);
    assert.doesNotMatch(report.diagnostics[0]!.message, /revoked-key-401/);
    for (const message of MESSAGES) assert.equal(counter.countMessage(message), conservative.countMessage(message));
    // The framing request was the only one sent; later precounts, of this counter or a new one with the same key, send none.
    assert.equal(server.requests.length, 1);
    const later = await counter.precount({ messages: [{ role: 'user', content: 'a new message' }] });
    assert.deepEqual([later.counted, later.fallbacks, later.diagnostics.map((diagnostic) => diagnostic.code)], [0, 1, ['TOKEN_COUNT_AUTH']]);
    const again = await new ProviderTokenCounter(options).precount({ messages: MESSAGES });
    assert.deepEqual(again.diagnostics.map((diagnostic) => diagnostic.code), ['TOKEN_COUNT_AUTH']);
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

test('a 403 on a text after the framing stops every request of the precount, names the given key variable, and a turn still assembles', async () => {
  const server = await startCountServer('anthropic', (text) => (text === '.' ? undefined : { status: 403, body: '{"type":"error","error":{"type":"permission_error"}}' }));
  try {
    const counter = new ProviderTokenCounter({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'forbidden-key-403', apiKeyName: 'STRATA_COUNT_KEY', baseURL: server.baseURL });
    const many = Array.from({ length: 40 }, (_, index): CanonicalMessage => ({ role: 'user', content: `message ${index}` }));
    const assembler = createContextAssembler({ registry: new ContextContributorRegistry(), budget: resolveContextBudget({ inputCapTokens: 8_000 }), exactEstimator: counter });
    const turn = await assembler.assemble({ contextId: 'auth', turn: 1, history: many, tools: [] });
    const refused = turn.trace.diagnostics.filter((diagnostic) => diagnostic.code === 'TOKEN_COUNT_AUTH');
    assert.equal(refused.length, 1);
    assert.match(refused[0]!.message, /STRATA_COUNT_KEY/);
    assert.equal(turn.trace.diagnostics.filter((diagnostic) => diagnostic.code === 'TOKEN_COUNT_FALLBACK').length, 0);
    assert.ok(turn.input.messages.length > 0);
    // The framing, then at most one request per worker (4) before the refusal stopped them: no storm over 40 texts.
    const sent = server.requests.length;
    assert.ok(sent <= 5, `${sent} requests`);
    await counter.precount({ messages: [...many, { role: 'user', content: 'one more' }] });
    assert.equal(server.requests.length, sent);
  } finally {
    await server.close();
  }
});

test('a count request that does not answer within the timeout falls back (injected timers: no waiting)', async () => {
  const server = await startCountServer('openai', (text) => (text === '.' ? undefined : 'hold'));
  const { timers, fire, whenPending } = manualTimers();
  try {
    const counter = new ProviderTokenCounter({ provider: 'openai', model: 'gpt-4.1', apiKey: 'k', baseURL: server.baseURL, timeoutMs: 250, timers });
    const precount = counter.precount({ messages: MESSAGES.slice(0, 1) });
    // The framing request answers; then the held one waits on its timer.
    for (let turn = 0; turn < 10_000 && server.requests.length < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    await whenPending();
    assert.equal(fire(250), 1);
    const report = await precount;
    assert.equal(report.fallbacks, 1);
    assert.match(report.diagnostics[0]!.message, /no answer within 250 ms/);
    assert.equal(counter.countMessage(MESSAGES[0]!), new ConservativeTokenEstimator({ family: 'o200k' }).countMessage(MESSAGES[0]!));
  } finally {
    await server.close();
  }
});

test('an unreachable endpoint falls back for everything, and precount never throws', async () => {
  const server = await startCountServer('gemini');
  const baseURL = server.baseURL;
  await server.close();
  const counter = new ProviderTokenCounter({ provider: 'gemini', model: 'gemini-2.5-flash', apiKey: 'k', baseURL });
  const report = await counter.precount({ messages: MESSAGES });
  assert.equal(report.counted, 0);
  assert.equal(report.fallbacks, 3);
  assert.match(report.diagnostics[0]!.message, /framing/);
  assert.equal(counter.family, 'gemma');
  assert.equal(counter.countMessage(MESSAGES[2]!), new ConservativeTokenEstimator({ family: 'gemma' }).countMessage(MESSAGES[2]!));
});

test('a turn whose provider count failed says so in its trace, and still assembles on the conservative estimate', async () => {
  const server = await startCountServer('anthropic');
  const baseURL = server.baseURL;
  await server.close();
  const counter = new ProviderTokenCounter({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'k', baseURL });
  const assembler = createContextAssembler({ registry: new ContextContributorRegistry(), budget: resolveContextBudget({ inputCapTokens: 8_000 }), exactEstimator: counter });
  const turn = await assembler.assemble({ contextId: 'fallback', turn: 1, history: MESSAGES, tools: [] });
  const fallbacks = turn.trace.diagnostics.filter((diagnostic) => diagnostic.code === 'TOKEN_COUNT_FALLBACK');
  assert.equal(fallbacks.length, 1);
  assert.equal(fallbacks[0]!.severity, 'warning');
  assert.match(fallbacks[0]!.message, /anthropic did not count the framing/);
  assert.ok(turn.input.messages.length > 0);
});

test('a counter without a provider, model, key, valid timeout or URL is a ModelConfigurationError naming the setting', () => {
  const valid = { provider: 'openai', model: 'gpt-4.1', apiKey: 'k' } as const;
  const cases: Array<[unknown, string]> = [
    [{ ...valid, provider: 'cohere' }, 'provider'],
    [{ ...valid, provider: 'toString' }, 'provider'],
    [{ ...valid, model: ' ' }, 'model'],
    [{ ...valid, apiKey: undefined }, 'apiKey'],
    [{ ...valid, apiKeyName: ' ' }, 'apiKeyName'],
    [{ ...valid, timeoutMs: 0 }, 'timeoutMs'],
    [{ ...valid, timeoutMs: 1.5 }, 'timeoutMs'],
    [{ ...valid, baseURL: 'not a url' }, 'baseURL'],
    [undefined, 'tokenCounter'],
  ];
  for (const [options, setting] of cases) {
    assert.throws(() => new ProviderTokenCounter(options as never), (error: unknown) => ModelConfigurationError.isInstance(error) && error.setting === setting, setting);
  }
});
