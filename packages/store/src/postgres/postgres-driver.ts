import { createRequire } from 'node:module';
import { loadOptionalPeer } from '@strata/context';

/**
 * The few parts of `pg` the PostgreSQL stores use, declared here so that
 * `@strata/store`'s declarations never name a type from `pg`, which is an
 * optional peer dependency: a consumer without it type-checks, and a real
 * `pg.Pool` fits `PostgresPool` where one is passed in.
 */
export interface PostgresQueryResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number | null;
}

export interface PostgresPoolClient {
  /** Rows are whatever the SQL selects; as in `pg`, the caller names their type. */
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PostgresQueryResult<Row>>;
  /** Destroys the client instead of pooling it again when given an error or `true`. */
  release(error?: Error | boolean): void;
  /** A connection that dies while the client is checked out emits `error` here (a `pg` client has these; a stand-in may not). */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
}

export interface PostgresPool {
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
  readonly options: { readonly user?: string; readonly host?: string; readonly port?: number; readonly database?: string };
}

/** What the stores take from the `pg` module. */
interface PostgresDriver {
  readonly Pool: new (config: { connectionString: string; max: number; connectionTimeoutMillis: number }) => PostgresPool & { on(event: 'error', listener: (error: Error) => void): unknown };
  readonly Client: new (config: { connectionString: string }) => { connect(): Promise<void>; query(text: string): Promise<unknown>; end(): Promise<void> };
  escapeIdentifier(identifier: string): string;
}

/** The range of `pg` the stores are tested with, as the peer dependency states it. */
export const PG_PEER_RANGE = '^8.11.0';

const require = createRequire(import.meta.url);
let loaded: PostgresDriver | undefined;

/**
 * `pg`, loaded through `load` (by default `require('pg')`). When it is not
 * installed: a `ConfigurationError` naming the package to install.
 */
export function loadPostgresDriver(load: () => unknown = () => require('pg')): PostgresDriver {
  return loadOptionalPeer<PostgresDriver>({ name: 'pg', range: PG_PEER_RANGE, setting: 'store URL', neededBy: 'a PostgreSQL store' }, load);
}

/** `pg`, loaded the first time a PostgreSQL store is made (never for memory or SQLite), then kept. */
export function postgresDriver(): PostgresDriver {
  return (loaded ??= loadPostgresDriver());
}
