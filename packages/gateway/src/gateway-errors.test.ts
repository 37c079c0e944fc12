import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startGateway } from './gateway-server.js';
import { listen, recordedOutputs } from './testing/gateway-fixtures.js';

/** An upstream that counts its requests and answers each 200 with a body that is not JSON (a broken upstream or proxy). */
async function brokenUpstream(t: { after(fn: () => unknown): void }): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [ not json'));
  });
  const url = await listen(server);
  t.after(() => server.close());
  return { url, requests: () => requests };
}

/** A request through each client: the rejection it gives, with its status and the error body the client read. */
async function failureOf(call: () => Promise<unknown>): Promise<{ status: number | undefined; body: Record<string, any> }> {
  try {
    await call();
  } catch (error) {
    if (error instanceof OpenAI.APIError) return { status: error.status, body: { error: error.error } };
    if (error instanceof Anthropic.APIError) return { status: error.status, body: error.error as Record<string, any> };
    throw error;
  }
  assert.fail('the request succeeded');
}

const ask = (url: string, system: string, stream: boolean) => ({
  chat: () => failureOf(async () => {
    const answer = await new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 0 }).chat.completions.create({ model: 'm', stream, messages: [{ role: 'system', content: system }, { role: 'user', content: 'hi' }] });
    if (stream) for await (const _chunk of answer as AsyncIterable<unknown>);
  }),
  messages: () => failureOf(async () => {
    const answer = await new Anthropic({ baseURL: url.replace(/\/v1$/, ''), apiKey: 'k', maxRetries: 0 }).messages.create({ model: 'm', max_tokens: 10, stream, system, messages: [{ role: 'user', content: 'hi' }] });
    if (stream) for await (const _event of answer as AsyncIterable<unknown>);
  }),
  responses: () => failureOf(async () => {
    const answer = await new OpenAI({ baseURL: url, apiKey: 'k', maxRetries: 0 }).responses.create({ model: 'm', stream, instructions: system, input: 'hi', store: false });
    if (stream) for await (const _event of answer as AsyncIterable<unknown>);
  }),
});

test('a window too small for what must be kept is a 400 in each API\'s error shape (OpenAI: context_length_exceeded), streamed or not, and nothing goes upstream', { timeout: 20_000 }, async (t) => {
  const outputs = recordedOutputs();
  if (!outputs) return t.skip('../shared is absent');
  const upstream = await brokenUpstream(t);
  const gateway = await startGateway({ upstream: upstream.url, windowTokens: 1_000, store: 'memory:', port: 0 });
  t.after(() => gateway.close());
  // The system prompt is the anchor: always kept, and alone past the window.
  const system = `You are a careful maintainer.\n${outputs.slice(0, 3).join('\n')}`;
  for (const stream of [false, true]) {
    const { chat, messages, responses } = ask(gateway.url, system, stream);
    for (const [name, failed] of [['chat', await chat()], ['responses', await responses()]] as const) {
      assert.equal(failed.status, 400, `${name} stream=${stream}`);
      assert.equal(failed.body.error?.type, 'invalid_request_error', `${name} stream=${stream}`);
      assert.equal(failed.body.error?.code, 'context_length_exceeded', `${name} stream=${stream}`);
      assert.match(String(failed.body.error?.message), /too small/, `${name} stream=${stream}`);
    }
    const anthropic = await messages();
    assert.equal(anthropic.status, 400, `messages stream=${stream}`);
    assert.equal(anthropic.body.type, 'error');
    assert.equal(anthropic.body.error?.type, 'invalid_request_error');
    assert.match(String(anthropic.body.error?.message), /too small/);
  }
  assert.equal(upstream.requests(), 0, 'nothing was sent upstream');
});

test('an upstream that cannot be reached is a 502, an upstream answer the gateway cannot read a 500, each in the API\'s error shape, never a bare "Internal Server Error"', { timeout: 20_000 }, async (t) => {
  // A port nothing listens on: the server is closed before the gateway starts.
  const closed = createServer();
  const deadUrl = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  const broken = await brokenUpstream(t);
  for (const [url, status] of [[deadUrl, 502], [broken.url, 500]] as const) {
    const gateway = await startGateway({ upstream: url, windowTokens: 24_000, store: 'memory:', port: 0 });
    t.after(() => gateway.close());
    for (const stream of [false, true]) {
      const { chat, messages, responses } = ask(gateway.url, 'You are brief.', stream);
      for (const [name, failed] of [['chat', await chat()], ['responses', await responses()]] as const) {
        assert.equal(failed.status, status, `${name} stream=${stream}`);
        assert.equal(failed.body.error?.type, 'server_error', `${name} stream=${stream}`);
        assert.match(String(failed.body.error?.message), status === 502 ? /upstream gave no answer/ : /gateway failed/, `${name} stream=${stream}`);
      }
      const anthropic = await messages();
      assert.equal(anthropic.status, status, `messages stream=${stream}`);
      assert.equal(anthropic.body.error?.type, 'api_error');
    }
  }
  assert.ok(broken.requests() >= 6, 'the broken upstream was called');
});
