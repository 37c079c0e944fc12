import { serve } from '@hono/node-server';
import pg from 'pg';
import { openRunDirectory } from './run-directory.js';
import { RunLog } from './run-log.js';
import { createServiceApp } from './service-app.js';
import { resolveServiceDatabase, type ServiceDatabase } from './service-database.js';
import type { ServiceFailure, TraceViewer } from './service-app.js';

export interface ServiceServerOptions {
  readonly database: ServiceDatabase;
  readonly token: string;
  readonly profiles: readonly string[];
  readonly models: readonly string[];
  /** Default 127.0.0.1: the API is not reachable from other machines unless told. */
  readonly hostname?: string;
  /** Default 8787; 0 picks a free port. */
  readonly port?: number;
  readonly maxBodyBytes?: number;
  /** The trace viewer mounted at `GET /runs/:id/view` (the CLI gives its own). */
  readonly viewer?: TraceViewer;
  /** Every request answered with a 5xx, with its cause. Default: written to stderr. */
  readonly onFailure?: (failure: ServiceFailure) => void;
}

export interface ServiceServer {
  /** `http://<host>:<port>`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Runs the HTTP API over the shared PostgreSQL (it runs no workflows itself). */
export async function startServiceServer(options: ServiceServerOptions): Promise<ServiceServer> {
  const database = resolveServiceDatabase(options.database);
  const runs = await openRunDirectory({ database });
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => undefined);
  const app = createServiceApp({ runs, runLog: new RunLog({ pool, schema: database.serviceSchema }), profiles: options.profiles, models: options.models, token: options.token, maxBodyBytes: options.maxBodyBytes, viewer: options.viewer, onFailure: options.onFailure });
  const { server, url } = await listen(app.fetch, { hostname: options.hostname, port: options.port });
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runs.close();
      await pool.end();
    },
  };
}

/** Serves `fetch` on Node's HTTP server; resolves once it listens. Default 127.0.0.1:8787; port 0 picks a free one. */
export async function listen(fetch: (request: Request) => Response | Promise<Response>, options: { hostname?: string; port?: number }): Promise<{ server: ReturnType<typeof serve>; url: string }> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch, hostname, port: options.port ?? 8787 }, () => resolve(started));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return { server, url: `http://${hostname}:${port}` };
}
