import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLanguageModel } from './create-language-model.js';
import { createModelClient } from './create-model-client.js';
import { generate } from './generate.js';
import { createProxyFetch, proxyOptionsFromEnvironment } from './proxy-fetch.js';

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

type Seen = { method: string; target: string; authorization: string | undefined };

/**
 * A forward proxy on 127.0.0.1 that streams both ways: absolute-form
 * requests for http targets, CONNECT tunnels for https. Records each request
 * it saw (a tunnel once, however many requests travel through it).
 */
async function startProxy() {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const proxy = createServer((request, response) => {
    seen.push({ method: request.method ?? '', target: request.url ?? '', authorization: request.headers['proxy-authorization'] });
    const target = new URL(request.url ?? '');
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: request.method, path: `${target.pathname}${target.search}`, headers }, (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(response);
    });
    request.pipe(upstream);
  });
  proxy.on('connect', (request: IncomingMessage, client: Socket) => {
    seen.push({ method: 'CONNECT', target: request.url ?? '', authorization: request.headers['proxy-authorization'] });
    const [host, port] = (request.url ?? '').split(':');
    const upstream = connect(Number(port), host === 'localhost' ? '127.0.0.1' : (host ?? ''));
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
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await close(proxy);
    },
  };
}

/** A self-signed certificate for `localhost`, made by `openssl`; undefined (with a printed notice) where there is none. */
function selfSignedCertificate(directory: string): { key: string; cert: string } | undefined {
  const made = spawnSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem'), '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost',
  ]);
  if (made.error !== undefined || made.status !== 0) {
    console.log('# notice: openssl is not available to make a test certificate; the HTTPS proxy test is skipped');
    return undefined;
  }
  return { key: readFileSync(join(directory, 'key.pem'), 'utf8'), cert: readFileSync(join(directory, 'cert.pem'), 'utf8') };
}

async function ask(model: ReturnType<typeof createLanguageModel>): Promise<string> {
  const result = await generate(createModelClient({ model }), { messages: [{ role: 'user', content: 'hi' }] });
  return result.message.content;
}

test('proxy settings come from HTTP_PROXY / HTTPS_PROXY / NO_PROXY, upper case first, lower case too', () => {
  assert.deepEqual(proxyOptionsFromEnvironment({ HTTPS_PROXY: ' http://secure:3128 ', http_proxy: 'http://lower:1', NO_PROXY: 'localhost' }), {
    httpProxy: { url: 'http://lower:1', setting: 'http_proxy' },
    httpsProxy: { url: 'http://secure:3128', setting: 'HTTPS_PROXY' },
    noProxy: 'localhost',
  });
  assert.deepEqual(proxyOptionsFromEnvironment({ HTTP_PROXY: 'http://upper:1', http_proxy: 'http://lower:1', no_proxy: '.internal' }), {
    httpProxy: { url: 'http://upper:1', setting: 'HTTP_PROXY' },
    httpsProxy: undefined,
    noProxy: '.internal',
  });
  assert.equal(proxyOptionsFromEnvironment({ NO_PROXY: '*', HTTP_PROXY: '  ' }), undefined);
  assert.equal(proxyOptionsFromEnvironment({}), undefined);
});

test('an http target goes through HTTP_PROXY in absolute form, with proxy credentials', async () => {
  const provider = createServer(answer);
  const providerPort = await listen(provider);
  const proxy = await startProxy();
  try {
    const model = createLanguageModel({
      model: 'openai:gpt-4.1',
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `http://127.0.0.1:${providerPort}/v1`, http_proxy: `http://user:p%40ss@127.0.0.1:${proxy.port}` },
    });
    assert.equal(await ask(model), 'via proxy');
    assert.deepEqual(proxy.seen, [
      { method: 'POST', target: `http://127.0.0.1:${providerPort}/v1/chat/completions`, authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}` },
    ]);
  } finally {
    await proxy.close();
    await close(provider);
  }
});

test('an https target goes through a kept-alive CONNECT tunnel with TLS to the target inside it', async (context) => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-proxy-'));
  try {
    const certificate = selfSignedCertificate(directory);
    if (certificate === undefined) {
      context.skip('no openssl');
      return;
    }
    const provider = createSecureServer(certificate, answer);
    const providerPort = await listen(provider);
    const proxy = await startProxy();
    try {
      const fetch = createProxyFetch({ httpsProxy: { url: proxy.url, setting: 'HTTPS_PROXY' }, ca: certificate.cert });
      const model = createLanguageModel({ model: 'openai:gpt-4.1', apiKey: 'sk-test', baseURL: `https://localhost:${providerPort}/v1`, fetch });
      assert.equal(await ask(model), 'via proxy');
      assert.deepEqual(proxy.seen, [{ method: 'CONNECT', target: `localhost:${providerPort}`, authorization: undefined }]);
      // The connection is kept alive: a second request whose body was read to its end travels through the same tunnel.
      for (let request = 0; request < 2; request += 1) {
        const response = await fetch(`https://localhost:${providerPort}/v1/chat/completions`, { method: 'POST', body: '{}' });
        assert.equal(response.status, 200);
        assert.match(await response.text(), /via proxy/);
      }
      assert.equal(proxy.seen.length, 2);
    } finally {
      await proxy.close();
      await close(provider);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('a streamed request body reaches the target through the proxy before it ends', { timeout: 20_000 }, async () => {
  let firstChunk!: () => void;
  const firstChunkArrived = new Promise<void>((resolve) => (firstChunk = resolve));
  const echo: RequestListener = (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      firstChunk();
    });
    request.on('end', () => response.end(`received: ${Buffer.concat(chunks).toString()}`));
  };
  const target = createServer(echo);
  const targetPort = await listen(target);
  const proxy = await startProxy();
  try {
    const fetch = createProxyFetch({ httpProxy: { url: proxy.url, setting: 'HTTP_PROXY' } });
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (started) => void (controller = started) });
    controller.enqueue(new TextEncoder().encode('first,'));
    const responding = fetch(`http://127.0.0.1:${targetPort}/upload`, { method: 'POST', body, duplex: 'half' } as RequestInit);
    // A buffering fetch would wait for the end of the body, which only comes after this: the test would time out.
    await firstChunkArrived;
    controller.enqueue(new TextEncoder().encode('second'));
    controller.close();
    const response = await responding;
    assert.equal(await response.text(), 'received: first,second');
    assert.deepEqual(proxy.seen.map((seen) => [seen.method, seen.target]), [['POST', `http://127.0.0.1:${targetPort}/upload`]]);
  } finally {
    await proxy.close();
    await close(target);
  }
});

test('NO_PROXY and proxy: false bypass a configured proxy; a NO_PROXY entry for another port does not', async () => {
  const provider = createServer(answer);
  const providerPort = await listen(provider);
  const proxy = await startProxy();
  try {
    const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `http://127.0.0.1:${providerPort}/v1`, HTTP_PROXY: proxy.url };
    for (const bypass of [{ env: { ...env, NO_PROXY: `example.test, 127.0.0.1` } }, { env: { ...env, no_proxy: `127.0.0.1:${providerPort}` } }, { env, proxy: false as const }]) {
      assert.equal(await ask(createLanguageModel({ model: 'openai:gpt-4.1', ...bypass })), 'via proxy');
    }
    assert.deepEqual(proxy.seen, []);
    assert.equal(await ask(createLanguageModel({ model: 'openai:gpt-4.1', env: { ...env, NO_PROXY: `127.0.0.1:${providerPort + 1}` } })), 'via proxy');
    assert.equal(proxy.seen.length, 1);
  } finally {
    await proxy.close();
    await close(provider);
  }
});

/** The messages of an error and its causes, one a line. */
function causeMessages(error: unknown): string {
  const messages: string[] = [];
  for (let current = error; current instanceof Error; current = current.cause) messages.push(current.message);
  return messages.join('\n');
}

test('a proxy that refuses the tunnel fails the request', async () => {
  const refusing = createServer();
  refusing.on('connect', (_request: IncomingMessage, socket: Socket) => socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
  const port = await listen(refusing);
  try {
    const fetch = createProxyFetch({ httpsProxy: { url: `http://127.0.0.1:${port}`, setting: 'HTTPS_PROXY' } });
    await assert.rejects(fetch('https://api.example.test/v1/x', { method: 'POST', body: '{}' }), (error: unknown) => /\(403\)/.test(causeMessages(error)));
  } finally {
    await close(refusing);
  }
});
