import { chmodSync, mkdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SessionStore, ToolOutputStore } from '@strata/context';
import { ConfigurationError } from '@strata/context';
import { StoreAccessError } from './errors/store-access-error.js';
import { MEMORY_LOCATION, createMemoryToolOutputStore } from './memory/memory-tool-output-store.js';
import { createMemorySessionStore } from './memory/memory-session-store.js';
import { openSqliteToolOutputStore } from './sqlite/sqlite-tool-output-store.js';
import { openSqliteSessionStore } from './sqlite/sqlite-session-store.js';
import type { SqliteStoreOptions } from './sqlite/sqlite-database.js';
import { createPostgresPool, redactConnectionString, type PostgresStoreOptions } from './postgres/postgres-connection.js';
import { createPostgresToolOutputStore } from './postgres/postgres-tool-output-store.js';
import { createPostgresSessionStore } from './postgres/postgres-session-store.js';

/** Both stores over one backend; `close()` closes both (and the PostgreSQL pool). */
export interface Stores {
  readonly toolOutputs: ToolOutputStore;
  readonly sessions: SessionStore;
  /** `memory:`, the SQLite file path, or the PostgreSQL URL without its password. */
  readonly location: string;
  close(): Promise<void>;
}

/** The SQLite file `openDefaultStores` keeps under the data directory. */
export const DEFAULT_DATABASE_FILE = 'strata.db';

export function createMemoryStores(): Stores {
  const toolOutputs = createMemoryToolOutputStore();
  const sessions = createMemorySessionStore();
  return { toolOutputs, sessions, location: MEMORY_LOCATION, close: () => closeAll(toolOutputs, sessions) };
}

/** Both stores in one SQLite file (each on its own connection). */
export function openSqliteStores(options: SqliteStoreOptions): Stores {
  const toolOutputs = openSqliteToolOutputStore(options);
  try {
    const sessions = openSqliteSessionStore(options);
    return { toolOutputs, sessions, location: resolve(options.path), close: () => closeAll(toolOutputs, sessions) };
  } catch (error) {
    void toolOutputs.close();
    throw error;
  }
}

/** Both stores on one pool (made here from `connectionString` unless `pool` is given). */
export function createPostgresStores(options: PostgresStoreOptions): Stores {
  const ownPool = options.pool === undefined && options.connectionString !== undefined ? createPostgresPool({ ...options, connectionString: options.connectionString }) : undefined;
  const shared = { ...options, pool: options.pool ?? ownPool };
  const toolOutputs = createPostgresToolOutputStore(shared);
  const sessions = createPostgresSessionStore(shared);
  return {
    toolOutputs,
    sessions,
    location: `${redactConnectionString(options.connectionString ?? 'postgres://(shared pool)')} (schema ${options.schema ?? 'public'})`,
    async close() {
      await closeAll(toolOutputs, sessions);
      await ownPool?.end();
    },
  };
}

/**
 * The embedded default: `<dataDir>/strata.db`, creating the data directory
 * (mode 0700) when absent.
 */
export function openDefaultStores(options: { readonly dataDir: string; readonly busyTimeoutMs?: number }): Stores {
  const dataDir = resolve(options.dataDir);
  try {
    if (!existsSync(dataDir)) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      chmodSync(dataDir, 0o700);
    }
  } catch (cause) {
    throw new StoreAccessError({ code: 'STORE_UNREADABLE', location: dataDir, message: `cannot create the data directory ${dataDir}`, cause });
  }
  return openSqliteStores({ path: join(dataDir, DEFAULT_DATABASE_FILE), busyTimeoutMs: options.busyTimeoutMs });
}

export interface OpenStoresOptions {
  /** Resolves a relative `sqlite:` path. Default: the process's working directory. */
  readonly baseDirectory?: string;
  /** Names the setting in a `ConfigurationError` for a bad URL. Default: `store URL`. */
  readonly setting?: string;
  readonly signal?: AbortSignal;
}

/**
 * Chooses a backend by URL: `memory:`; `sqlite:<path>` (also
 * `sqlite:///absolute/path`); `postgres://` or `postgresql://` with an
 * optional `schema` query parameter (default `public`). SQLite is opened now
 * (a bad file fails here); PostgreSQL connects on first use.
 */
export async function openStores(url: string, options: OpenStoresOptions = {}): Promise<Stores> {
  options.signal?.throwIfAborted();
  const setting = options.setting ?? 'store URL';
  if (url === 'memory:' || url === 'memory://') return createMemoryStores();
  if (url.startsWith('sqlite:')) {
    let path = url.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2);
    if (path === '') throw new ConfigurationError({ setting, message: `${setting} ${JSON.stringify(url)} names no file: use sqlite:<path>` });
    return openSqliteStores({ path: resolve(options.baseDirectory ?? process.cwd(), path) });
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch (cause) {
      throw new ConfigurationError({ setting, message: `${setting} is not a valid PostgreSQL URL: ${redactConnectionString(url)}`, cause });
    }
    const schema = parsed.searchParams.get('schema') ?? undefined;
    parsed.searchParams.delete('schema');
    return createPostgresStores({ connectionString: parsed.toString(), schema });
  }
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(url)?.[0] ?? '(none)';
  throw new ConfigurationError({
    setting,
    message: `${setting} has an unknown scheme ${JSON.stringify(scheme)}: use memory:, sqlite:<path> or postgres://...`,
  });
}

async function closeAll(...stores: ReadonlyArray<{ close(): Promise<void> }>): Promise<void> {
  const results = await Promise.allSettled(stores.map((store) => store.close()));
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
}
