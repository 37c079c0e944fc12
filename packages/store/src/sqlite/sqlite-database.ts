import type { ToolOutputIdMaker } from '../tool-output-body.js';
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StrataError, withDefaults } from '@strata/context';
import { StoreAccessError, type StoreAccessErrorCode } from '../errors/store-access-error.js';
import { sqliteDriver, type SqliteDatabase } from './sqlite-driver.js';

export interface SqliteStoreOptions {
  /** The database file. Created (mode 0600) when absent unless `fileMustExist`; its directory must exist. */
  readonly path: string;
  /** Refuse to create the file: a missing database is a `STORE_MISSING` error. Default: false. */
  readonly fileMustExist?: boolean;
  /** How long a write waits for another connection's lock before `STORE_BUSY`. Default: 5,000 ms. */
  readonly busyTimeoutMs?: number;
  /** The tool-output store's reference ids (default: `newToolOutputId`; `derivedToolOutputId` for runs compared across processes). */
  readonly newToolOutputId?: ToolOutputIdMaker;
}

export const SQLITE_DEFAULTS = Object.freeze({ fileMustExist: false, busyTimeoutMs: 5_000 });

/** One schema change of one component, applied once, in version order. */
export interface SqliteMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export type { SqliteDatabase } from './sqlite-driver.js';

/**
 * Opens a connection in WAL mode with `synchronous = FULL` (a commit survives
 * a process crash and a power loss; a crash mid-write leaves the last commit
 * intact), then applies the component's pending migrations. A file that is
 * not a database is reported, never overwritten.
 */
export function openSqliteDatabase(options: SqliteStoreOptions & { readonly component: string; readonly migrations: readonly SqliteMigration[] }): {
  database: SqliteDatabase;
  path: string;
} {
  // An option passed as undefined keeps its default.
  const settings = withDefaults(SQLITE_DEFAULTS, options);
  const path = resolve(settings.path);
  // Loaded before the file is touched: without better-sqlite3, the error names the package and creates nothing.
  const Database = sqliteDriver();
  prepareFile(path, settings.fileMustExist);
  let database: SqliteDatabase | undefined;
  try {
    database = new Database(path, { fileMustExist: true, timeout: settings.busyTimeoutMs });
    // Reads the header first: a file that is not a database fails here.
    database.pragma('schema_version');
    const mode = database.pragma('journal_mode = WAL', { simple: true });
    if (String(mode).toLowerCase() !== 'wal') {
      throw new StoreAccessError({ code: 'STORE_IO', location: path, message: `SQLite store ${path}: could not switch to WAL mode (journal_mode is ${String(mode)})` });
    }
    database.pragma('synchronous = FULL');
    migrate(database, settings.component, settings.migrations);
    return { database, path };
  } catch (error) {
    database?.close();
    throw sqliteAccessError(error, { path, operation: 'open' });
  }
}

function prepareFile(path: string, fileMustExist: boolean): void {
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) {
      throw new StoreAccessError({ code: 'STORE_UNREADABLE', location: path, message: `SQLite store ${path} is a directory, not a database file` });
    }
    return;
  }
  if (fileMustExist) {
    throw new StoreAccessError({ code: 'STORE_MISSING', location: path, message: `SQLite store ${path} does not exist` });
  }
  const directory = dirname(path);
  if (!existsSync(directory)) {
    throw new StoreAccessError({ code: 'STORE_MISSING', location: path, message: `SQLite store ${path}: directory ${directory} does not exist` });
  }
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    // Another connection created it first: fine.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw sqliteAccessError(error, { path, operation: 'create' });
  }
}

function migrate(database: SqliteDatabase, component: string, migrations: readonly SqliteMigration[]): void {
  // IMMEDIATE: two processes opening a new file at once apply each migration once.
  database.transaction(() => {
    database.exec(
      'CREATE TABLE IF NOT EXISTS strata_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (component, version))',
    );
    const applied = new Set(
      database.prepare<[string], number>('SELECT version FROM strata_migrations WHERE component = ?').pluck().all(component),
    );
    const record = database.prepare('INSERT INTO strata_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)');
    for (const migration of [...migrations].sort((left, right) => left.version - right.version)) {
      if (applied.has(migration.version)) continue;
      database.exec(migration.sql);
      record.run(component, migration.version, migration.name, new Date().toISOString());
    }
  }).immediate();
}

const CODE_BY_SQLITE_CODE: ReadonlyArray<readonly [string, StoreAccessErrorCode]> = [
  ['SQLITE_NOTADB', 'STORE_CORRUPTED'],
  ['SQLITE_CORRUPT', 'STORE_CORRUPTED'],
  ['SQLITE_CANTOPEN', 'STORE_UNREADABLE'],
  ['SQLITE_PERM', 'STORE_UNREADABLE'],
  ['SQLITE_AUTH', 'STORE_UNREADABLE'],
  ['SQLITE_READONLY', 'STORE_READONLY'],
  ['SQLITE_BUSY', 'STORE_BUSY'],
  ['SQLITE_LOCKED', 'STORE_BUSY'],
  ['SQLITE_FULL', 'STORE_FULL'],
];

const CODE_BY_ERRNO: Readonly<Record<string, StoreAccessErrorCode>> = Object.freeze({
  ENOENT: 'STORE_MISSING',
  ENOTDIR: 'STORE_MISSING',
  EACCES: 'STORE_UNREADABLE',
  EPERM: 'STORE_UNREADABLE',
  EISDIR: 'STORE_UNREADABLE',
  EROFS: 'STORE_READONLY',
  ENOSPC: 'STORE_FULL',
});

/** Turns whatever SQLite or the file system threw into a `StoreAccessError` naming the file. */
export function sqliteAccessError(error: unknown, options: { path: string; operation: string }): StrataError {
  if (StrataError.isInstance(error)) return error;
  const raw = String((error as { code?: unknown } | null)?.code ?? '');
  const code =
    CODE_BY_SQLITE_CODE.find(([prefix]) => raw === prefix || raw.startsWith(`${prefix}_`))?.[1] ?? CODE_BY_ERRNO[raw] ?? 'STORE_IO';
  const detail = error instanceof Error ? error.message : String(error);
  const meaning = code === 'STORE_CORRUPTED' ? ' (the file is damaged or is not a SQLite database; it was left untouched)' : '';
  return new StoreAccessError({
    code,
    location: options.path,
    message: `SQLite store ${options.path}: ${options.operation} failed${meaning}: ${detail}`,
    cause: error,
  });
}
