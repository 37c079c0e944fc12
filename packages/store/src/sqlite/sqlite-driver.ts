import { createRequire } from 'node:module';
import { loadOptionalPeer } from '@strata/context';

/**
 * The few parts of `better-sqlite3` the SQLite stores use, declared here so
 * that `@strata/store`'s declarations never name a type from
 * `better-sqlite3`, which is an optional peer dependency: a consumer without
 * it type-checks, and a real `Database` fits `SqliteDatabase`.
 */
export interface SqliteStatement<Params extends unknown[] = unknown[], Row = unknown> {
  run(...params: Params): unknown;
  get(...params: Params): Row | undefined;
  all(...params: Params): Row[];
  /** Rows become their first column's value (the statement's `Row` names that value's type). */
  pluck(toggle?: boolean): this;
}

/** A function run in one transaction; `immediate` takes the write lock first. */
export type SqliteTransaction<Work extends (...args: never[]) => unknown> = Work & {
  readonly immediate: Work;
};

export interface SqliteDatabase {
  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): SqliteStatement<Params, Row>;
  transaction<Work extends (...args: never[]) => unknown>(work: Work): SqliteTransaction<Work>;
  exec(sql: string): unknown;
  pragma(sql: string, options?: { readonly simple?: boolean }): unknown;
  close(): unknown;
}

/** What the stores take from the `better-sqlite3` module: its `Database` constructor. */
export type SqliteDriver = new (path: string, options: { readonly fileMustExist: boolean; readonly timeout: number }) => SqliteDatabase;

/** The range of `better-sqlite3` the stores are tested with, as the peer dependency states it. */
export const BETTER_SQLITE3_PEER_RANGE = '^12.0.0';

const require = createRequire(import.meta.url);
let loaded: SqliteDriver | undefined;

/**
 * `better-sqlite3`, loaded through `load` (by default
 * `require('better-sqlite3')`). When it is not installed: a
 * `ConfigurationError` naming the package to install. Any other failure is
 * rethrown as it is.
 */
export function loadSqliteDriver(load: () => unknown = () => require('better-sqlite3')): SqliteDriver {
  return loadOptionalPeer<SqliteDriver>({ name: 'better-sqlite3', range: BETTER_SQLITE3_PEER_RANGE, setting: 'store URL', neededBy: 'a SQLite store' }, load);
}

/** `better-sqlite3`, loaded the first time a SQLite store is opened (never for memory or PostgreSQL), then kept. */
export function sqliteDriver(): SqliteDriver {
  return (loaded ??= loadSqliteDriver());
}
