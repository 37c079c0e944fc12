import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { ConfigurationError } from '@strata/context';
import { startGateway } from './gateway-server.js';
import { listen } from './testing/gateway-fixtures.js';

const TOKEN = 'gateway-token-0123456789';
const completion = (model: unknown) => ({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } });
const anthropicMessage = (model: unknown) => ({ id: 'msg_1', type: 'message', role: 'assistant', model, content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 2 } });

interface Seen {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/** An upstream answering both APIs, its model list and Anthropic's model page; `hold` keeps each completion until released. */
async function fakeUpstream(options: { models?: unknown; anthropicModel?: unknown; hold?: boolean } = {}) {
  const seen: Seen[] = [];
  const held: Array<() => void> = [];
  let arrived: () => void = () => undefined;
  const server = createServer(async (request, response) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const path = request.url ?? '';
    seen.push({ path, headers: request.headers });
    const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/v1/models') return json(200, options.models ?? { object: 'list', data: [] });
    if (path.startsWith('/v1/models/')) return options.anthropicModel ? json(200, options.anthropicModel) : json(404, { type: 'error', error: { type: 'not_found_error', message: 'no such model' } });
    if (path === '/api/show') return json(404, { error: 'not ollama' });
    const body = JSON.parse(raw) as { model?: unknown };
    const answer = () => json(200, path === '/v1/messages' ? anthropicMessage(body.model) : completion(body.model));
    if (!options.hold) return answer();
    held.push(answer);
    arrived();
  });
  const url = await listen(server);
  return { server, url, seen, held, arrival: () => new Promise<void>((resolve) => (arrived = resolve)) };
}

const chat = (url: string, headers: Record<string, string>, body: unknown = { model: 'm', messages: [{ role: 'user', content: 'hello' }] }) =>
  fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const messages = (url: string, headers: Record<string, string>, body: unknown = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hello' }] }) =>
  fetch(`${url}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers }, body: JSON.stringify(body) });

test('token: every route but /health needs it, a wrong or missing one is a 401 in each API\'s shape, and it never goes upstream', async (t) => {
  const upstream = await fakeUpstream();
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstream.url, windowTokens: 24_000, store: 'memory:', port: 0, token: TOKEN });
  t.after(() => gateway.close());
  assert.equal((await fetch(gateway.url.replace(/\/v1$/, '/health'))).status, 200);

  const missing = await chat(gateway.url, {});
  assert.equal(missing.status, 401);
  assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
  const wrong = await messages(gateway.url, { 'x-api-key': 'gateway-token-wrong-000000' });
  assert.equal(wrong.status, 401);
  assert.deepEqual(((await wrong.json()) as { type: string; error: { type: string } }).error.type, 'authentication_error');
  assert.equal((await fetch(`${gateway.url}/models`)).status, 401);
  assert.equal(upstream.seen.length, 0, 'nothing unauthenticated reaches the upstream');

  // The token in x-strata-token leaves Authorization for the client's own upstream key; as a bearer it is removed.
  assert.equal((await chat(gateway.url, { 'x-strata-token': TOKEN, authorization: 'Bearer client-upstream-key' })).status, 200);
  assert.equal((await chat(gateway.url, { authorization: `Bearer ${TOKEN}` }, { model: 'm', messages: [{ role: 'user', content: 'other' }] })).status, 200);
  assert.equal((await messages(gateway.url, { 'x-api-key': TOKEN })).status, 200);
  assert.equal(upstream.seen[0]!.headers.authorization, 'Bearer client-upstream-key');
  for (const { headers } of upstream.seen) {
    assert.ok(!JSON.stringify(headers).includes(TOKEN), 'the gateway token is never forwarded');
    assert.equal(headers['x-strata-token'], undefined);
  }
});

test('binding beyond 127.0.0.1 without a token is refused; a short token is refused', async () => {
  await assert.rejects(startGateway({ upstream: 'http://127.0.0.1:1/v1', windowTokens: 24_000, store: 'memory:', hostname: '0.0.0.0', port: 0 }), (error: unknown) => ConfigurationError.isInstance(error) && /token/.test((error as Error).message));
  await assert.rejects(startGateway({ upstream: 'http://127.0.0.1:1/v1', windowTokens: 24_000, store: 'memory:', port: 0, token: 'short' }), (error: unknown) => ConfigurationError.isInstance(error) && (error as ConfigurationError).setting === 'token');
  await assert.rejects(startGateway({ upstream: 'http://127.0.0.1:1/v1', windowTokens: 24_000, store: 'memory:', port: 0, shutdownTimeoutMs: -1 }), /shutdownTimeoutMs/);
});

test('limits: a body over maxBodyBytes is a 413 and too many messages a 400, each in its API\'s error shape, before the upstream is called', async (t) => {
  const upstream = await fakeUpstream();
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstream.url, windowTokens: 24_000, store: 'memory:', port: 0, maxBodyBytes: 4_096, maxMessages: 3 });
  t.after(() => gateway.close());
  const big = await chat(gateway.url, {}, { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(5_000) }] });
  assert.equal(big.status, 413);
  assert.equal(((await big.json()) as { error: { code: string } }).error.code, 'request_too_large');
  const bigAnthropic = await messages(gateway.url, {}, { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x'.repeat(5_000) }] });
  assert.equal(bigAnthropic.status, 413);
  assert.equal(((await bigAnthropic.json()) as { type: string; error: { type: string } }).error.type, 'request_too_large');
  const many = Array.from({ length: 4 }, (_, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content: `m${index}` }));
  const tooMany = await chat(gateway.url, {}, { model: 'm', messages: many });
  assert.equal(tooMany.status, 400);
  assert.match(((await tooMany.json()) as { error: { message: string } }).error.message, /4 messages, over the gateway's limit of 3/);
  assert.equal(upstream.seen.length, 0);
  assert.equal((await chat(gateway.url, {}, { model: 'm', messages: many.slice(0, 3) })).status, 200);
});

test('graceful shutdown: close refuses new connections, lets the request in flight finish with its answer, then closes the store', async (t) => {
  const upstream = await fakeUpstream({ hold: true });
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstream.url, windowTokens: 24_000, store: 'memory:', port: 0 });
  const arrived = upstream.arrival();
  const inFlight = chat(gateway.url, {}, { model: 'm', stream: true, messages: [{ role: 'user', content: 'hello' }] });
  await arrived;
  assert.equal(gateway.inFlight, 1);
  let closed = false;
  const closing = gateway.close().then(() => (closed = true));
  await assert.rejects(chat(gateway.url, {}), 'a new connection is refused once closing');
  assert.equal(closed, false, 'the store stays open while a request is in flight');
  upstream.held.shift()!();
  const response = await inFlight;
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.match(text, /data: \[DONE\]/, 'the stream in flight is finished');
  await closing;
  assert.equal(closed, true);
  assert.equal(gateway.inFlight, 0);
});

test('window discovery: per model from /v1/models (max_model_len) and Anthropic\'s Models API, cached; --window wins; a 400 naming the model when neither says', async (t) => {
  const upstream = await fakeUpstream({ models: { object: 'list', data: [{ id: 'qwen-local', object: 'model', max_model_len: 32_768 }] }, anthropicModel: { id: 'claude-x', type: 'model', max_input_tokens: 200_000 } });
  t.after(() => upstream.server.close());
  const gateway = await startGateway({ upstream: upstream.url, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  assert.equal((await chat(gateway.url, {}, { model: 'qwen-local', messages: [{ role: 'user', content: 'a' }] })).status, 200);
  assert.equal((await chat(gateway.url, {}, { model: 'qwen-local', messages: [{ role: 'user', content: 'b' }] })).status, 200);
  assert.equal(upstream.seen.filter(({ path }) => path === '/v1/models').length, 1, 'asked once per model');
  assert.equal((await messages(gateway.url, {}, { model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'c' }] })).status, 200);
  assert.deepEqual(upstream.seen.filter(({ path }) => path.startsWith('/v1/models/')).map(({ path }) => path), ['/v1/models/claude-x']);

  const unknown = await chat(gateway.url, {}, { model: 'gpt-unknown', messages: [{ role: 'user', content: 'd' }] });
  assert.equal(unknown.status, 400);
  assert.match(((await unknown.json()) as { error: { message: string } }).error.message, /window of gpt-unknown is not known.*--window/);
  assert.equal(upstream.seen.filter(({ path }) => path === '/v1/chat/completions').length, 2, 'no upstream call without a window');

  const configured = await startGateway({ upstream: upstream.url, windowTokens: 24_000, store: 'memory:', port: 0 });
  t.after(() => configured.close());
  const asked = upstream.seen.length;
  assert.equal((await chat(configured.url, {}, { model: 'gpt-unknown', messages: [{ role: 'user', content: 'e' }] })).status, 200);
  assert.deepEqual(upstream.seen.slice(asked).map(({ path }) => path), ['/v1/chat/completions'], 'a configured window asks nothing');
});

test('traces and the viewer: each upstream call writes a trace to the sink; /strata/view answers with the given routes behind the token, ?token= setting a cookie', async (t) => {
  const upstream = await fakeUpstream();
  t.after(() => upstream.server.close());
  const written: Array<{ contextId: string }> = [];
  const asked: string[] = [];
  const gateway = await startGateway({
    upstream: upstream.url, windowTokens: 24_000, store: 'memory:', port: 0, token: TOKEN,
    traceSink: { write: async (document) => void written.push(document) },
    view: async (path) => (asked.push(path), path === '/' ? new Response('<html>viewer</html>', { headers: { 'content-type': 'text/html' } }) : undefined),
  });
  t.after(() => gateway.close());
  const response = await chat(gateway.url, { authorization: `Bearer ${TOKEN}` });
  assert.equal(written.length, 1);
  assert.equal(written[0]!.contextId, response.headers.get('x-strata-context'));
  const root = gateway.url.replace(/\/v1$/, '');
  assert.equal((await fetch(`${root}/strata/view`)).status, 401);
  const page = await fetch(`${root}/strata/view?token=${TOKEN}`);
  assert.equal(await page.text(), '<html>viewer</html>');
  const cookie = page.headers.get('set-cookie')!;
  assert.match(cookie, /HttpOnly/);
  assert.equal((await fetch(`${root}/strata/view/turns.json`, { headers: { cookie: cookie.split(';')[0]! } })).status, 404, 'the cookie authenticates; the route itself is the viewer\'s');
  assert.deepEqual(asked, ['/', '/turns.json']);
});
