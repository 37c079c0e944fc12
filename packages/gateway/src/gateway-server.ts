// The gateway on Node's HTTP server, over the stores a store URL names.
import { serve } from '@hono/node-server';
import { ConfigurationError } from '@strata/context';
import { openStores } from '@strata/store';
import { createGatewayApp } from './gateway-app.js';

export interface StartGatewayOptions {
  /** The upstream's base URL (see `GatewayOptions.upstream`). */
  readonly upstream: string;
  /** Input tokens of every upstream request at most. */
  readonly windowTokens: number;
  /** `sqlite:<path>` (the default is `sqlite:strata-gateway.db` in the working directory), `postgres://...` or `memory:`. */
  readonly store?: string;
  /** Default 127.0.0.1. */
  readonly hostname?: string;
  /** Default 8788; 0 picks a free port. */
  readonly port?: number;
  /** Sent upstream instead of the client's key (see `GatewayOptions.upstreamApiKey`). */
  readonly upstreamApiKey?: string;
}

export interface RunningGateway {
  /** The base URL clients use, e.g. `http://127.0.0.1:8788/v1`. */
  readonly url: string;
  /** Stops listening and closes the stores. */
  close(): Promise<void>;
}

/** The default SQLite file of `startGateway`. */
export const DEFAULT_GATEWAY_STORE = 'sqlite:strata-gateway.db';

/** Opens the stores, then serves the gateway; resolves once it listens. */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError({ setting: 'gateway options', message: 'startGateway: an options object is required' });
  if (options.store !== undefined && typeof options.store !== 'string') throw new ConfigurationError({ setting: 'store', message: 'startGateway: options.store must be a store URL string when given' });
  if (options.port !== undefined && !(Number.isSafeInteger(options.port) && options.port >= 0 && options.port <= 65_535)) throw new ConfigurationError({ setting: 'port', message: `startGateway: options.port must be an integer from 0 to 65535, got ${JSON.stringify(options.port)}` });
  const stores = await openStores(options.store ?? DEFAULT_GATEWAY_STORE, { setting: 'gateway store' });
  let app;
  try {
    app = createGatewayApp({ upstream: options.upstream, windowTokens: options.windowTokens, sessionStore: stores.sessions, outputStore: stores.toolOutputs, upstreamApiKey: options.upstreamApiKey });
  } catch (error) {
    await stores.close();
    throw error;
  }
  const hostname = options.hostname ?? '127.0.0.1';
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname, port: options.port ?? 8788 }, () => resolve(started));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    url: `http://${hostname}:${port}/v1`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stores.close();
    },
  };
}
