import { ConfigurationError, StrataError } from '@strata/context';
import { StoreAccessError, type StoreAccessErrorCode } from '../errors/store-access-error.js';
import { postgresDriver, type PostgresPool, type PostgresPoolClient } from './postgres-driver.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`; ignored when `pool` is given. */
  readonly connectionString?: string;
  /** A pool shared with other stores (a `PostgresPool`); `close()` leaves it open for its owner to end. */
  readonly pool?: PostgresPool;
  /** Schema holding the tables, created on first use. Default: `public`. */
  readonly schema?: string;
  /** Pool size when the store makes its own pool. Default: 10 connections. */
  readonly maxConnections?: number;
  /** How long to wait for a connection before `STORE_UNREACHABLE`. Default: 10,000 ms. */
  readonly connectionTimeoutMs?: number;
}

export const POSTGRES_DEFAULTS = Object.freeze({ schema: 'public', maxConnections: 10, connectionTimeoutMs: 10_000 });

/** One schema change of one component; `sql` receives the quoted schema name. */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: (schema: string) => string;
}

const SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Makes a pool that reports idle-connection failures on the next query
 * instead of crashing the process. Loads `pg` (an optional peer dependency):
 * a `ConfigurationError` names it when it is not installed.
 */
export function createPostgresPool(options: { connectionString: string; maxConnections?: number; connectionTimeoutMs?: number }): PostgresPool {
  const pool = new (postgresDriver().Pool)({
    connectionString: options.connectionString,
    max: options.maxConnections ?? POSTGRES_DEFAULTS.maxConnections,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? POSTGRES_DEFAULTS.connectionTimeoutMs,
  });
  // An idle client dropped by the server emits here; without a listener Node exits.
  pool.on('error', () => undefined);
  return pool;
}

/** The URL without its password, for messages and `StoreAccessError.location`. */
export function redactConnectionString(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/**
 * One store's access to PostgreSQL: applies the component's migrations once
 * (under an advisory lock, so many workers starting together apply each
 * once, recorded in `strata_migrations`), then runs each operation on a
 * pooled client, turning failures into `StoreAccessError`s.
 */
export class PostgresConnection {
  readonly location: string;
  readonly schema: string;
  readonly #pool: PostgresPool;
  readonly #ownsPool: boolean;
  readonly #component: string;
  readonly #migrations: readonly PostgresMigration[];
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: PostgresStoreOptions & { readonly component: string; readonly migrations: readonly PostgresMigration[] }) {
    // Defaults merged with `??`: an option passed as undefined keeps its default.
    const settings = { ...options, schema: options.schema ?? POSTGRES_DEFAULTS.schema };
    if (!SCHEMA_PATTERN.test(settings.schema)) {
      throw new ConfigurationError({
        setting: 'schema',
        message: `PostgreSQL schema ${JSON.stringify(settings.schema)} must be lowercase letters, digits and underscores, starting with a letter or underscore`,
      });
    }
    if (settings.pool === undefined && (settings.connectionString === undefined || settings.connectionString === '')) {
      throw new ConfigurationError({ setting: 'connectionString', message: 'a PostgreSQL store needs a connectionString or a pool' });
    }
    this.schema = settings.schema;
    this.#ownsPool = settings.pool === undefined;
    this.#pool = settings.pool ?? createPostgresPool({ connectionString: settings.connectionString!, maxConnections: settings.maxConnections, connectionTimeoutMs: settings.connectionTimeoutMs });
    const url = settings.connectionString ?? describePool(this.#pool);
    this.location = `${redactConnectionString(url)} (schema ${settings.schema})`;
    this.#component = settings.component;
    this.#migrations = settings.migrations;
  }

  /** Qualified, quoted table name. */
  table(name: string): string {
    return `${postgresDriver().escapeIdentifier(this.schema)}.${postgresDriver().escapeIdentifier(name)}`;
  }

  /** Throws `STORE_CLOSED` after `close`; connects to nothing. */
  ensureOpen(operation: string): void {
    if (this.#closed) {
      throw new StoreAccessError({ code: 'STORE_CLOSED', location: this.location, message: `${operation}: the PostgreSQL ${this.#component} store at ${this.location} is closed` });
    }
  }

  async use<T>(operation: string, work: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
    this.ensureOpen(operation);
    try {
      await this.#ensureSchema();
      const client = await this.#pool.connect();
      try {
        return await work(client);
      } finally {
        client.release();
      }
    } catch (error) {
      throw postgresAccessError(error, { location: this.location, operation });
    }
  }

  /** Runs `work` in one transaction; rolls back on any failure. */
  async transaction<T>(operation: string, work: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
    return this.use(operation, async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }

  #ensureSchema(): Promise<void> {
    this.#ready ??= this.#migrate().catch((error: unknown) => {
      // Let the next operation try again (the server may come back).
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #migrate(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      try {
        // One lock per schema: concurrent first uses wait, then find the work done.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`strata.migrations.${this.schema}`]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${postgresDriver().escapeIdentifier(this.schema)}`);
        const migrations = this.table('strata_migrations');
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${migrations} (component text NOT NULL, version integer NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))`,
        );
        const applied = new Set(
          (await client.query<{ version: number }>(`SELECT version FROM ${migrations} WHERE component = $1`, [this.#component])).rows.map((row) => row.version),
        );
        for (const migration of [...this.#migrations].sort((left, right) => left.version - right.version)) {
          if (applied.has(migration.version)) continue;
          await client.query(migration.sql(postgresDriver().escapeIdentifier(this.schema)));
          await client.query(`INSERT INTO ${migrations} (component, version, name) VALUES ($1, $2, $3)`, [this.#component, migration.version, migration.name]);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      client.release();
    }
  }
}

function describePool(pool: PostgresPool): string {
  const options = pool.options;
  return `postgres://${options.user ?? ''}@${options.host ?? 'localhost'}:${options.port ?? 5432}/${options.database ?? ''}`;
}

const CODE_BY_SQLSTATE: ReadonlyArray<readonly [string, StoreAccessErrorCode]> = [
  ['28', 'STORE_UNREACHABLE'], // invalid authorization
  ['08', 'STORE_UNREACHABLE'], // connection exception
  ['57P', 'STORE_UNREACHABLE'], // server shutting down
  ['3D000', 'STORE_MISSING'], // database does not exist
  ['42501', 'STORE_UNREADABLE'], // insufficient privilege
  ['25006', 'STORE_READONLY'], // read-only transaction
  ['53', 'STORE_FULL'], // insufficient resources
  ['XX001', 'STORE_CORRUPTED'],
  ['XX002', 'STORE_CORRUPTED'],
  ['40', 'STORE_BUSY'], // serialization failure, deadlock
  ['55P03', 'STORE_BUSY'], // lock not available
];

const NETWORK_ERRNOS: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/** Turns a `pg` or network failure into a `StoreAccessError` naming the server (password removed). */
export function postgresAccessError(error: unknown, options: { location: string; operation: string }): StrataError {
  if (StrataError.isInstance(error)) return error;
  const raw = String((error as { code?: unknown } | null)?.code ?? '');
  const detail = error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);
  const timedOut = /timeout|terminated/i.test(detail);
  const code: StoreAccessErrorCode = NETWORK_ERRNOS.has(raw) || (raw === '' && timedOut)
    ? 'STORE_UNREACHABLE'
    : (CODE_BY_SQLSTATE.find(([prefix]) => raw.startsWith(prefix))?.[1] ?? 'STORE_IO');
  return new StoreAccessError({
    code,
    location: options.location,
    message: `PostgreSQL store ${options.location}: ${options.operation} failed: ${detail}`,
    cause: error,
  });
}
