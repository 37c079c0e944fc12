// The gateway on Node's HTTP server, over the stores a store URL names: token, limits, traces, graceful shutdown.
import { serve } from '@hono/node-server';
import { ConfigurationError, type TraceSink } from '@strata/context';
import { openStores } from '@strata/store';
import { createGatewayApp, type GatewayWindow } from './gateway-app.js';
import type { GatewayTelemetry } from './gateway-telemetry.js';
import type { GatewayProvider } from './provider-wire.js';
import { errorResponse, guardRequests } from './request-guard.js';
import { createWindowResolver } from './window-resolver.js';

export interface StartGatewayOptions {
  /** The upstream's base URL (see `GatewayOptions.upstream`). */
  readonly upstream: string;
  /** Input tokens of every upstream request at most, or a resolver per model. Default: discovered from the upstream per model (`createWindowResolver`). */
  readonly windowTokens?: number | GatewayWindow;
  /** `sqlite:<path>` (the default is `sqlite:strata-gateway.db` in the working directory), `postgres://...` or `memory:`. */
  readonly store?: string;
  /** Default 127.0.0.1. Any other address needs `token`. */
  readonly hostname?: string;
  /** Default 8788; 0 picks a free port. */
  readonly port?: number;
  /** Sent upstream instead of the client's key (see `GatewayOptions.upstreamApiKey`). */
  readonly upstreamApiKey?: string;
  /** The token clients present (see `guardRequests`); required when `hostname` is not a loopback address. */
  readonly token?: string;
  /** Default 32 MiB (413 past it). */
  readonly maxBodyBytes?: number;
  /** Default 10,000 (400 past it). */
  readonly maxMessages?: number;
  /** Receives one trace document per upstream call. Default: none. */
  readonly traceSink?: TraceSink;
  /** Starts each client request's telemetry (see `GatewayOptions.telemetry`). Default: none. */
  readonly telemetry?: GatewayTelemetry;
  /** Answers `GET /strata/view[/...]` (the CLI gives the trace viewer over the trace directory); undefined is a 404. Default: none. */
  readonly view?: (path: string) => Promise<Response | undefined>;
  /** How long `close` waits for requests in flight before it cuts their connections. Default 30,000 ms. */
  readonly shutdownTimeoutMs?: number;
  /** The API of every upstream request (see `GatewayOptions.provider`). Default: each front end forwards in its own API. */
  readonly provider?: GatewayProvider;
  /** Receives what the gateway notices beside requests (a window discovery notice). */
  readonly onNotice?: (message: string) => void;
}

export interface RunningGateway {
  /** The base URL clients use, e.g. `http://127.0.0.1:8788/v1`. */
  readonly url: string;
  /** Requests being answered now (a stream counts until its last byte). */
  readonly inFlight: number;
  /**
   * Stops taking requests (new ones are refused), lets those in flight
   * finish (a stream to its end, at most `shutdownTimeoutMs`), then closes
   * the stores. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/** The default SQLite file of `startGateway`. */
export const DEFAULT_GATEWAY_STORE = 'sqlite:strata-gateway.db';
const SHUTDOWN_TIMEOUT_MS = 30_000;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Opens the stores, then serves the gateway; resolves once it listens. */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError({ setting: 'gateway options', message: 'startGateway: an options object is required' });
  if (options.store !== undefined && typeof options.store !== 'string') throw new ConfigurationError({ setting: 'store', message: 'startGateway: options.store must be a store URL string when given' });
  if (options.port !== undefined && !(Number.isSafeInteger(options.port) && options.port >= 0 && options.port <= 65_535)) throw new ConfigurationError({ setting: 'port', message: `startGateway: options.port must be an integer from 0 to 65535, got ${JSON.stringify(options.port)}` });
  const hostname = options.hostname ?? '127.0.0.1';
  if (typeof hostname !== 'string' || hostname.trim() === '') throw new ConfigurationError({ setting: 'hostname', message: 'startGateway: options.hostname must be an address string when given' });
  if (!LOOPBACK.has(hostname) && options.token === undefined) throw new ConfigurationError({ setting: 'token', message: `startGateway: binding ${hostname} (beyond 127.0.0.1) needs a client token (--token or STRATA_GATEWAY_TOKEN)` });
  if (options.view !== undefined && typeof options.view !== 'function') throw new ConfigurationError({ setting: 'view', message: 'startGateway: options.view must be a function when given' });
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS;
  if (!Number.isSafeInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0) throw new ConfigurationError({ setting: 'shutdownTimeoutMs', message: `startGateway: options.shutdownTimeoutMs must be a non-negative integer, got ${JSON.stringify(shutdownTimeoutMs)}` });
  const windowTokens = typeof options.windowTokens === 'function' ? options.windowTokens : createWindowResolver({ upstream: options.upstream, windowTokens: options.windowTokens, apiKey: options.upstreamApiKey, onNotice: options.onNotice });
  const stores = await openStores(options.store ?? DEFAULT_GATEWAY_STORE, { setting: 'gateway store' });
  let handler: (request: Request) => Promise<Response>;
  try {
    const app = createGatewayApp({ upstream: options.upstream, windowTokens, sessionStore: stores.sessions, outputStore: stores.toolOutputs, upstreamApiKey: options.upstreamApiKey, traceSink: options.traceSink, telemetry: options.telemetry, provider: options.provider });
    const view = options.view;
    if (view) app.get('/strata/view/*', async (c) => (await view(c.req.path.slice('/strata/view'.length) || '/')) ?? c.notFound());
    if (view) app.get('/strata/view', async (c) => (await view('/')) ?? c.notFound());
    const guarded = guardRequests(app.fetch, { token: options.token, maxBodyBytes: options.maxBodyBytes, maxMessages: options.maxMessages });
    handler = async (request) => guarded(request);
  } catch (error) {
    await stores.close();
    throw error;
  }

  let closing: Promise<void> | undefined;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const settle = () => {
    inFlight -= 1;
    if (inFlight === 0) idle?.();
  };
  /** Each request counts until its response has been written out (or its connection died): a stream in flight is finished before the stores close. */
  const tracked = async (request: Request, binding: { outgoing?: { once(event: 'close', listener: () => void): unknown } }): Promise<Response> => {
    if (closing) return errorResponse(new URL(request.url).pathname, 503, 'the gateway is shutting down: retry on another instance');
    inFlight += 1;
    let settled = false;
    const once = () => {
      if (!settled) {
        settled = true;
        settle();
      }
    };
    binding.outgoing?.once('close', once);
    try {
      return await handler(request);
    } catch (error) {
      once();
      throw error;
    } finally {
      if (binding.outgoing === undefined) once();
    }
  };

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: tracked, hostname, port: options.port ?? 8788 }, () => resolve(started));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const shown = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    url: `http://${shown}:${port}/v1`,
    get inFlight() {
      return inFlight;
    },
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        if (inFlight > 0) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([new Promise<void>((resolve) => (idle = resolve)), new Promise<void>((resolve) => (timer = setTimeout(resolve, shutdownTimeoutMs)))]);
          clearTimeout(timer);
        }
        // Idle keep-alive connections (and, past the timeout, those still busy) are cut so the server stops.
        if ('closeAllConnections' in server) server.closeAllConnections();
        await stopped;
        await stores.close();
      })();
      return closing;
    },
  };
}
