import { request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { ModelConfigurationError } from './errors/model-configuration-error.js';

type ModelEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * The proxy for requests to `target`, from the environment record, the way
 * common tools read it: `HTTPS_PROXY` for https targets (falling back to
 * `HTTP_PROXY`), `HTTP_PROXY` for http targets, lower-case forms accepted;
 * none when `NO_PROXY` matches the host (`*`, a host, a `.suffix`, an
 * optional `:port`). `setting` names the variable the URL came from.
 */
export function proxyForTarget(target: string, env: ModelEnvironment): { url: string; setting: string } | undefined {
  const url = new URL(target);
  const candidates = url.protocol === 'https:' ? ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] : ['HTTP_PROXY', 'http_proxy'];
  const setting = candidates.find((name) => (env[name] ?? '').trim().length > 0);
  if (setting === undefined) return undefined;
  const noProxy = env.NO_PROXY ?? env.no_proxy ?? '';
  if (bypassesProxy(url, noProxy)) return undefined;
  return { url: (env[setting] ?? '').trim(), setting };
}

function bypassesProxy(url: URL, noProxy: string): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return noProxy
    .split(/[\s,]+/)
    .filter((entry) => entry.length > 0)
    .some((entry) => {
      if (entry === '*') return true;
      const match = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase());
      const pattern = (match?.[1] ?? '').replace(/^\*?\./, '.').replace(/^\[|\]$/g, '');
      if (match?.[2] !== undefined && match[2] !== port) return false;
      return pattern.startsWith('.') ? host.endsWith(pattern) || host === pattern.slice(1) : host === pattern;
    });
}

export interface ProxyFetchOptions {
  /** `http://[user:password@]host:port`. */
  readonly proxyUrl: string;
  /** The variable or option the URL came from, named in errors. Default `proxy`. */
  readonly setting?: string;
  /** Extra trusted certificates for TLS through the tunnel (tests, inspecting proxies). */
  readonly ca?: string | readonly string[];
}

/**
 * A `fetch` that sends every request through an HTTP proxy, built on Node's
 * own `http`, `https` and `tls` (Node 20 ships no public proxy agent): http
 * targets in absolute form, https targets through a `CONNECT` tunnel with
 * TLS to the target inside it. Streams the response body; honours the
 * request's abort signal.
 */
export function createProxyFetch(options: ProxyFetchOptions): typeof globalThis.fetch {
  const setting = options.setting ?? 'proxy';
  let proxy: URL;
  try {
    proxy = new URL(options.proxyUrl);
  } catch (cause) {
    throw new ModelConfigurationError({ code: 'MODEL_PROXY_INVALID', setting, message: `${setting}: '${options.proxyUrl}' is not a proxy URL`, cause });
  }
  if (proxy.protocol !== 'http:') {
    throw new ModelConfigurationError({ code: 'MODEL_PROXY_INVALID', setting, message: `${setting}: only http:// proxies are supported, got '${proxy.protocol}'` });
  }
  const proxyAuthorization: Record<string, string> =
    proxy.username.length === 0
      ? {}
      : { 'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}` };
  const proxyPort = Number(proxy.port || 80);

  return async (input, init) => {
    const request = new Request(input, init);
    const target = new URL(request.url);
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const headers: Record<string, string> = { ...Object.fromEntries(request.headers), host: target.host };
    if (body !== undefined) headers['content-length'] = String(body.length);
    const signal = request.signal;
    signal.throwIfAborted();

    let response: IncomingMessage;
    if (target.protocol === 'http:') {
      response = await send(httpRequest, { host: proxy.hostname, port: proxyPort, method: request.method, path: target.href, headers: { ...headers, ...proxyAuthorization }, signal }, body);
    } else {
      const targetPort = Number(target.port || 443);
      const tunnel = await openTunnel({ proxy, proxyPort, proxyAuthorization, host: target.hostname, port: targetPort, signal });
      const secure = tlsConnect({ socket: tunnel, ...(isIP(target.hostname) === 0 ? { servername: target.hostname } : {}), ...(options.ca === undefined ? {} : { ca: [...[options.ca].flat()] }) });
      response = await send(
        httpsRequest,
        { host: target.hostname, port: targetPort, method: request.method, path: `${target.pathname}${target.search}`, headers, signal, createConnection: () => secure },
        body,
      );
    }
    return toResponse(response);
  };
}

function send(requestFunction: typeof httpRequest, options: RequestOptions, body: Buffer | undefined): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = requestFunction(options, resolve);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function openTunnel(options: {
  proxy: URL;
  proxyPort: number;
  proxyAuthorization: Record<string, string>;
  host: string;
  port: number;
  signal: AbortSignal;
}): Promise<Socket> {
  const authority = `${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
  return new Promise((resolve, reject) => {
    const connect = httpRequest({
      host: options.proxy.hostname,
      port: options.proxyPort,
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...options.proxyAuthorization },
      signal: options.signal,
    });
    connect.once('connect', (response, socket) => {
      if (response.statusCode === 200) {
        resolve(socket);
        return;
      }
      socket.destroy();
      reject(new Error(`proxy ${options.proxy.host} refused CONNECT ${authority}: HTTP ${response.statusCode ?? 'without status'}`));
    });
    connect.once('error', reject);
    connect.end();
  });
}

function toResponse(incoming: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const status = incoming.statusCode ?? 502;
  const nullBody = status === 204 || status === 205 || status === 304;
  if (nullBody) incoming.resume();
  const body = nullBody ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: incoming.statusMessage ?? '', headers });
}
