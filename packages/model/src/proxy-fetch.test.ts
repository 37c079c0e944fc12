import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLanguageModel } from './create-language-model.js';
import { createModelClient } from './create-model-client.js';
import { generate } from './generate.js';
import { createProxyFetch, proxyForTarget } from './proxy-fetch.js';

const SSE_BODY = [
  { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta: { role: 'assistant', content: 'via proxy' }, finish_reason: null }] },
  { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .join('')
  .concat('data: [DONE]\n\n');

function answer(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(SSE_BODY);
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** A forward proxy: absolute-form requests for http targets, CONNECT tunnels for https. Records what it saw. */
async function startProxy() {
  const seen: Array<{ method: string; target: string; authorization: string | undefined }> = [];
  const sockets = new Set<Socket>();
  const proxy = createServer((request, response) => {
    seen.push({ method: request.method ?? '', target: request.url ?? '', authorization: request.headers['proxy-authorization'] });
    const target = new URL(request.url ?? '');
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    // Forward by hand over a raw socket so the test proxy adds nothing of its own.
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const head = [`${request.method} ${target.pathname}${target.search} HTTP/1.1`, ...Object.entries(headers).map(([name, value]) => `${name}: ${String(value)}`), 'connection: close', '', ''].join('\r\n');
      upstream.write(head);
      upstream.end(Buffer.concat(chunks));
      const reply: Buffer[] = [];
      upstream.on('data', (chunk: Buffer) => reply.push(chunk));
      upstream.on('end', () => {
        response.socket?.end(Buffer.concat(reply));
      });
    });
  });
  proxy.on('connect', (request: IncomingMessage, client: Socket) => {
    seen.push({ method: 'CONNECT', target: request.url ?? '', authorization: request.headers['proxy-authorization'] });
    const [host, port] = (request.url ?? '').split(':');
    const upstream = connect(Number(port), host === 'localhost' ? '127.0.0.1' : host ?? '');
    sockets.add(upstream);
    sockets.add(client);
    upstream.on('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
  });
  const port = await listen(proxy);
  return {
    port,
    seen,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await close(proxy);
    },
  };
}

test('proxy selection follows HTTPS_PROXY / HTTP_PROXY and NO_PROXY', () => {
  const env = { HTTPS_PROXY: 'http://proxy:3128', HTTP_PROXY: 'http://plain:3128', NO_PROXY: 'localhost,.internal.example, 10.0.0.1:8080' };
  assert.deepEqual(proxyForTarget('https://api.openai.com/v1', env), { url: 'http://proxy:3128', setting: 'HTTPS_PROXY' });
  assert.deepEqual(proxyForTarget('http://model.lan:8000/v1', env), { url: 'http://plain:3128', setting: 'HTTP_PROXY' });
  assert.deepEqual(proxyForTarget('https://api.anthropic.com', { http_proxy: 'http://lower:1' }), { url: 'http://lower:1', setting: 'http_proxy' });
  assert.equal(proxyForTarget('http://localhost:11434/v1', env), undefined);
  assert.equal(proxyForTarget('https://llm.internal.example/v1', env), undefined);
  assert.equal(proxyForTarget('https://internal.example/v1', env), undefined);
  assert.equal(proxyForTarget('http://10.0.0.1:8080/v1', env), undefined);
  assert.deepEqual(proxyForTarget('http://10.0.0.1:9090/v1', env)?.setting, 'HTTP_PROXY');
  assert.equal(proxyForTarget('https://api.openai.com/v1', { ...env, no_proxy: '*', NO_PROXY: undefined }), undefined);
  assert.equal(proxyForTarget('https://api.openai.com/v1', {}), undefined);
});

test('an http target goes through HTTP_PROXY in absolute form, with proxy credentials', async () => {
  const provider = createServer(answer);
  const providerPort = await listen(provider);
  const proxy = await startProxy();
  try {
    const model = createLanguageModel({
      model: 'openai:gpt-4.1',
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `http://127.0.0.1:${providerPort}/v1`, HTTP_PROXY: `http://user:p%40ss@127.0.0.1:${proxy.port}` },
    });
    const result = await generate(createModelClient({ model }), { messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(result.message.content, 'via proxy');
    assert.deepEqual(proxy.seen, [
      { method: 'POST', target: `http://127.0.0.1:${providerPort}/v1/chat/completions`, authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}` },
    ]);
  } finally {
    await proxy.close();
    await close(provider);
  }
});

test('proxy: false and NO_PROXY bypass a configured proxy', async () => {
  const provider = createServer(answer);
  const providerPort = await listen(provider);
  try {
    const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `http://127.0.0.1:${providerPort}/v1`, HTTP_PROXY: 'http://127.0.0.1:9' };
    for (const options of [{ proxy: false as const, env }, { env: { ...env, NO_PROXY: '127.0.0.1' } }]) {
      const result = await generate(createModelClient({ model: createLanguageModel({ model: 'openai:gpt-4.1', ...options }) }), { messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(result.message.content, 'via proxy');
    }
  } finally {
    await close(provider);
  }
});

test('an https target goes through a CONNECT tunnel with TLS to the target inside it', async (context) => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-proxy-'));
  try {
    const made = spawnSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem'), '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost',
    ]);
    if (made.status !== 0) {
      context.skip('openssl is not available to make a test certificate');
      return;
    }
    const cert = readFileSync(join(directory, 'cert.pem'), 'utf8');
    const provider = createSecureServer({ key: readFileSync(join(directory, 'key.pem')), cert }, answer);
    const providerPort = await listen(provider);
    const proxy = await startProxy();
    try {
      const fetch = createProxyFetch({ proxyUrl: `http://127.0.0.1:${proxy.port}`, ca: cert });
      const model = createLanguageModel({ model: 'openai:gpt-4.1', apiKey: 'sk-test', baseURL: `https://localhost:${providerPort}/v1`, fetch });
      const result = await generate(createModelClient({ model }), { messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(result.message.content, 'via proxy');
      assert.deepEqual(proxy.seen, [{ method: 'CONNECT', target: `localhost:${providerPort}`, authorization: undefined }]);
    } finally {
      await proxy.close();
      await close(provider);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a proxy that refuses the tunnel fails the request, naming the proxy answer', async () => {
  const refusing = createServer();
  refusing.on('connect', (_request: IncomingMessage, socket: Socket) => socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
  const port = await listen(refusing);
  try {
    const fetch = createProxyFetch({ proxyUrl: `http://127.0.0.1:${port}` });
    await assert.rejects(fetch('https://api.example.test/v1/x', { method: 'POST', body: '{}' }), /refused CONNECT api\.example\.test:443: HTTP 403/);
  } finally {
    await close(refusing);
  }
});
