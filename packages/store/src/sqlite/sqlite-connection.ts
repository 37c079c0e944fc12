import { StoreAccessError } from '../errors/store-access-error.js';
import { openSqliteDatabase, sqliteAccessError, type SqliteDatabase, type SqliteMigration, type SqliteStoreOptions } from './sqlite-database.js';

/**
 * One store's connection: every operation goes through `use`, which refuses
 * work after `close` and turns SQLite failures into `StoreAccessError`s
 * naming the file. better-sqlite3 is synchronous, so each operation runs to
 * its end before another starts in this process; other connections and
 * processes are serialized by SQLite's locks (waiting up to the busy timeout).
 */
export class SqliteConnection {
  readonly path: string;
  readonly #label: string;
  #database: SqliteDatabase | undefined;

  constructor(options: SqliteStoreOptions & { readonly component: string; readonly migrations: readonly SqliteMigration[] }) {
    const opened = openSqliteDatabase(options);
    this.path = opened.path;
    this.#database = opened.database;
    this.#label = options.component;
  }

  /** Throws `STORE_CLOSED` after `close`. */
  ensureOpen(operation: string): void {
    this.use(operation, () => undefined);
  }

  use<T>(operation: string, work: (database: SqliteDatabase) => T): T {
    const database = this.#database;
    if (database === undefined) {
      throw new StoreAccessError({ code: 'STORE_CLOSED', location: this.path, message: `${operation}: the SQLite ${this.#label} store at ${this.path} is closed` });
    }
    try {
      return work(database);
    } catch (error) {
      throw sqliteAccessError(error, { path: this.path, operation });
    }
  }

  close(): void {
    const database = this.#database;
    this.#database = undefined;
    database?.close();
  }
}
