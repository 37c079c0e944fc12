import type { ToolOutputIdMaker } from '../tool-output-body.js';
import { backoffDelayMs, ConfigurationError, StrataError, SYSTEM_TIMERS, withDefaults, type Timers } from '@strata/context';
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
  /** How an operation that met a transient failure (see `isTransientPostgresError`) is tried again. */
  readonly retry?: PostgresRetryOptions;
  /** The tool-output store's reference ids (default: `newToolOutputId`; `derivedToolOutputId` for runs compared across processes). */
  readonly newToolOutputId?: ToolOutputIdMaker;
}

/**
 * Bounded exponential backoff for transient failures: the server dropped
 * or terminated the connection (a restart, `pg_terminate_backend`, a
 * network reset), or a transaction lost a serialization race or a deadlock.
 */
export interface PostgresRetryOptions {
  /** Attempts in total, the first included. Default 5; 1 disables retries. */
  readonly maxAttempts?: number;
  /** Delay before the second attempt. Default 200 ms (then 400, 800, 1,600: about 3 s in all, a restart's length). */
  readonly initialDelayMs?: number;
  /** Growth of the delay per attempt. Default 2. */
  readonly backoffFactor?: number;
  /** Cap on any single delay. Default 5,000 ms. */
  readonly maxDelayMs?: number;
  /** The waits between attempts. Default: the process's timers. */
  readonly timers?: Timers;
  /** Jitter source in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

export const POSTGRES_DEFAULTS = Object.freeze({ schema: 'public', maxConnections: 10, connectionTimeoutMs: 10_000 });
export const POSTGRES_RETRY_DEFAULTS = Object.freeze({ maxAttempts: 5, initialDelayMs: 200, backoffFactor: 2, maxDelayMs: 5_000 });

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
 * pooled client, turning failures into `StoreAccessError`s. An operation
 * that meets a transient failure runs again on a fresh client, with
 * backoff, up to `retry.maxAttempts` times in all.
 */
export class PostgresConnection {
  readonly location: string;
  readonly schema: string;
  readonly #pool: PostgresPool;
  readonly #ownsPool: boolean;
  readonly #component: string;
  readonly #migrations: readonly PostgresMigration[];
  readonly #retry: Required<Omit<PostgresRetryOptions, 'timers' | 'random'>> & { timers: Timers; random: () => number };
  #ready: Promise<void> | undefined;
  #closed = false;
  /** Set once a connection was made: a server that answered before and refuses now is restarting. */
  #reached = false;

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
    this.#retry = retrySettings(settings.retry);
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

  /**
   * Runs `work` on a pooled client. After a transient failure `work` runs
   * again from the start on another client: it must be a read, or writes
   * whose repeat is harmless (a write whose statement may have committed
   * just before the connection broke is repeated, and a unique key then
   * refuses it). Writes that must not land twice go through `transaction`.
   */
  async use<T>(operation: string, work: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
    this.ensureOpen(operation);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.#once(work);
      } catch (error) {
        if (attempt >= this.#retry.maxAttempts || this.#closed || commitUnknown.has(error as object) || !isTransientPostgresError(error, { reached: this.#reached })) {
          const outcome = commitUnknown.has(error as object) ? `${operation} (COMMIT was sent; whether it took effect is unknown)` : operation;
          throw postgresAccessError(error, { location: this.location, operation: attempt === 1 ? outcome : `${outcome} (attempt ${attempt} of ${this.#retry.maxAttempts})` });
        }
        const delayMs = backoffDelayMs({ ...this.#retry, attempt });
        await new Promise<void>((resolve) => this.#retry.timers.set(resolve, delayMs));
      }
    }
  }

  /**
   * Runs `work` in one transaction; rolls back on any failure. A transient
   * failure before COMMIT (so the transaction did not happen) runs it again;
   * a broken connection during COMMIT is not retried, as the outcome is
   * unknown, and its error says so.
   */
  async transaction<T>(operation: string, work: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
    return this.use(operation, async (client) => {
      await client.query('BEGIN');
      let result: T;
      try {
        result = await work(client);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      try {
        await client.query('COMMIT');
      } catch (error) {
        // A serialization failure or deadlock reported at COMMIT rolled the transaction back; anything else may have committed.
        if (!hasSqlState(error, ROLLED_BACK_SQLSTATES)) commitUnknown.add(error as object);
        throw error;
      }
      return result;
    });
  }

  async #once<T>(work: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
    await this.#ensureSchema();
    return this.#withClient(work);
  }

  /** One pooled client for `work`; a client whose connection broke is discarded, not pooled again. */
  async #withClient<T>(work: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    this.#reached = true;
    // A connection that dies under a checked-out client emits `error` on it, which unheard ends the process; the query in progress fails with it anyway.
    const heard = () => undefined;
    client.on?.('error', heard);
    let broken = false;
    try {
      return await work(client);
    } catch (error) {
      broken = isTransientPostgresError(error, { reached: true }) && !hasSqlState(error, ROLLED_BACK_SQLSTATES);
      throw error;
    } finally {
      client.removeListener?.('error', heard);
      client.release(broken);
    }
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

  #migrate(): Promise<void> {
    return this.#withClient(async (client) => {
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
    });
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

function retrySettings(options: PostgresRetryOptions | undefined) {
  const settings = withDefaults({ ...POSTGRES_RETRY_DEFAULTS, timers: SYSTEM_TIMERS, random: Math.random }, options);
  if (!Number.isSafeInteger(settings.maxAttempts) || settings.maxAttempts < 1) {
    throw new ConfigurationError({ setting: 'retry.maxAttempts', message: `retry.maxAttempts must be a whole number of at least 1, got ${String(settings.maxAttempts)}` });
  }
  return settings;
}

/** Errors thrown by a COMMIT whose outcome is unknown: never retried. */
const commitUnknown = new WeakSet<object>();

/** Serialization failure, deadlock: the server rolled the transaction back. */
const ROLLED_BACK_SQLSTATES: ReadonlySet<string> = new Set(['40001', '40P01']);
/** admin_shutdown (`pg_terminate_backend`, a fast shutdown), crash_shutdown, cannot_connect_now (starting up, shutting down). */
const SHUTDOWN_SQLSTATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03']);
/** A connection that broke under a query. */
const BROKEN_ERRNOS: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE']);
/**
 * `pg` reports a connection closed under it with no code, only these
 * messages; a connect that timed out (`... due to connection timeout`)
 * already waited its limit and is not among them.
 */
const BROKEN_MESSAGES = /^(Connection terminated unexpectedly|Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)$/;

function hasSqlState(error: unknown, states: ReadonlySet<string>): boolean {
  return states.has(String((error as { code?: unknown } | null)?.code ?? ''));
}

/**
 * True for a failure that trying again can cure: a connection exception
 * (SQLSTATE class 08), a server shutting down or restarting (57P01-57P03),
 * a serialization failure or deadlock (40001, 40P01), a connection reset or
 * closed under a query; and, once the server was `reached` before, a
 * refused connection (the server is restarting). Never a bad statement,
 * a missing table, a refused login or a full disk.
 */
export function isTransientPostgresError(error: unknown, options: { reached: boolean }): boolean {
  if (error === null || typeof error !== 'object') return false;
  const code = String((error as { code?: unknown }).code ?? '');
  if (code.startsWith('08') || SHUTDOWN_SQLSTATES.has(code) || ROLLED_BACK_SQLSTATES.has(code) || BROKEN_ERRNOS.has(code)) return true;
  if (code === 'ECONNREFUSED') return options.reached;
  return code === '' && error instanceof Error && BROKEN_MESSAGES.test(error.message);
}

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
