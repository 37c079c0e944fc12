import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { manualTimers } from '@strata/testing';
import { ModelConfigurationError } from './errors/model-configuration-error.js';
import { ModelWindowDiscovery } from './model-window-discovery.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Anthropic's Models API, a vLLM and LM Studio `/v1/models`, and Ollama's `/api/show` on 127.0.0.1, as fakes. */
async function startWindowServer(routes: Record<string, (body: string) => unknown>) {
  const seen: Seen[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((incoming, outgoing) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    incoming.on('end', () => {
      seen.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers, body });
      const route = routes[`${incoming.method} ${incoming.url}`];
      const answer = route?.(body);
      if (answer === 'hold') return void held.push(outgoing);
      if (answer === undefined) return void outgoing.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      outgoing.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { root, seen, close };
}

test("Anthropic: the Models API's max_input_tokens, asked once (cached); the configured window wins, with a diagnostic when larger", async () => {
  const server = await startWindowServer({ 'GET /v1/models/claude-sonnet-4-5': () => ({ id: 'claude-sonnet-4-5', type: 'model', max_input_tokens: 200_000 }) });
  try {
    const discovery = new ModelWindowDiscovery();
    const options = { server: 'anthropic', baseURL: `${server.root}/v1`, model: 'claude-sonnet-4-5', apiKey: 'key' } as const;
    assert.deepEqual(await discovery.discover(options), { tokens: 200_000, source: 'server', serverTokens: 200_000, diagnostics: [] });
    assert.equal(server.seen[0]!.headers['x-api-key'], 'key');
    assert.equal(server.seen[0]!.headers['anthropic-version'], '2023-06-01');
    const configured = await discovery.discover({ ...options, configuredTokens: 1_000_000 });
    assert.equal(configured.tokens, 1_000_000);
    assert.equal(configured.source, 'configuration');
    assert.deepEqual(configured.diagnostics.map((diagnostic) => diagnostic.code), ['WINDOW_LARGER_THAN_SERVER']);
    assert.match(configured.diagnostics[0]!.message, /1000000 tokens.*200000/);
    assert.deepEqual((await discovery.discover({ ...options, configuredTokens: 100_000 })).diagnostics, []);
    assert.equal(server.seen.length, 1);
  } finally {
    await server.close();
  }
});

test("vLLM's max_model_len and LM Studio's loaded context length from /v1/models, for the model asked about", async () => {
  const server = await startWindowServer({
    'GET /v1/models': () => ({
      object: 'list',
      data: [
        { id: 'Qwen/Qwen3-32B', object: 'model', max_model_len: 32_768 },
        { id: 'qwen/qwen3-30b-a3b', object: 'model', max_context_length: 262_144, loaded_context_length: 8_192 },
      ],
    }),
  });
  try {
    const discovery = new ModelWindowDiscovery();
    const vllm = await discovery.discover({ server: 'openai-compatible', baseURL: `${server.root}/v1`, model: 'Qwen/Qwen3-32B' });
    assert.equal(vllm.tokens, 32_768);
    const lmStudio = await discovery.discover({ server: 'openai-compatible', baseURL: `${server.root}/v1`, model: 'qwen/qwen3-30b-a3b' });
    assert.equal(lmStudio.tokens, 8_192);
    const absent = await discovery.discover({ server: 'openai-compatible', baseURL: `${server.root}/v1`, model: 'llama3.1:8b' });
    assert.equal(absent.tokens, undefined);
    assert.equal(absent.source, 'none');
    assert.deepEqual(absent.diagnostics.map((diagnostic) => diagnostic.code), ['WINDOW_DISCOVERY_FAILED']);
  } finally {
    await server.close();
  }
});

test("Ollama: /api/show's num_ctx when configured; the model's own length with a diagnostic when not", async () => {
  const server = await startWindowServer({
    'POST /api/show': (body) => {
      const { model } = JSON.parse(body) as { model: string };
      const model_info = { 'general.architecture': 'qwen3', 'qwen3.context_length': 40_960 };
      return model === 'qwen3:30b' ? { model_info, parameters: 'temperature 0.6\nnum_ctx 16384\nstop "<|im_end|>"' } : { model_info, parameters: 'temperature 0.6' };
    },
  });
  try {
    const discovery = new ModelWindowDiscovery();
    const configured = await discovery.discover({ server: 'ollama', baseURL: `${server.root}/v1`, model: 'qwen3:30b', configuredTokens: 32_000 });
    assert.equal(server.seen[0]!.url, '/api/show');
    assert.equal(configured.serverTokens, 16_384);
    assert.equal(configured.tokens, 32_000);
    assert.deepEqual(configured.diagnostics.map((diagnostic) => diagnostic.code), ['WINDOW_LARGER_THAN_SERVER']);
    const unset = await discovery.discover({ server: 'ollama', baseURL: server.root, model: 'qwen3:8b' });
    assert.equal(unset.tokens, 40_960);
    assert.deepEqual(unset.diagnostics.map((diagnostic) => diagnostic.code), ['WINDOW_OLLAMA_NUM_CTX_UNSET']);
    assert.match(unset.diagnostics[0]!.message, /num_ctx/);
  } finally {
    await server.close();
  }
});

test('a server that does not answer within the timeout leaves the window unknown, and is asked again next time', async () => {
  let hold = true;
  const server = await startWindowServer({ 'GET /v1/models/claude-opus-4-1': () => (hold ? 'hold' : { max_input_tokens: 200_000 }) });
  const { timers, fire, whenPending } = manualTimers();
  try {
    const discovery = new ModelWindowDiscovery();
    const options = { server: 'anthropic', baseURL: `${server.root}/v1`, model: 'claude-opus-4-1', timeoutMs: 300, timers } as const;
    const pending = discovery.discover(options);
    for (let turn = 0; turn < 10_000 && server.seen.length < 1; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    await whenPending();
    assert.equal(fire(300), 1);
    const timedOut = await pending;
    assert.equal(timedOut.tokens, undefined);
    assert.match(timedOut.diagnostics[0]!.message, /no answer within 300 ms/);
    hold = false;
    assert.equal((await discovery.discover(options)).tokens, 200_000);
  } finally {
    await server.close();
  }
});

test('discovery without a known server, a model, a URL or a valid configured window is a ModelConfigurationError naming the setting', async () => {
  const discovery = new ModelWindowDiscovery();
  const valid = { server: 'ollama', baseURL: 'http://127.0.0.1:1', model: 'qwen3:30b' } as const;
  const cases: Array<[unknown, string]> = [
    [{ ...valid, server: 'bedrock' }, 'server'],
    [{ ...valid, model: '' }, 'model'],
    [{ ...valid, baseURL: 'nowhere' }, 'baseURL'],
    [{ ...valid, configuredTokens: -1 }, 'configuredTokens'],
    [null, 'window'],
  ];
  for (const [options, setting] of cases) {
    await assert.rejects(discovery.discover(options as never), (error: unknown) => ModelConfigurationError.isInstance(error) && error.setting === setting, setting);
  }
});
