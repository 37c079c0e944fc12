import type { SessionStore, SessionVersion } from '@strata/context';
import { requireContextId, requireVersion } from '../session-codec.js';
import { compactionColumn, nextSessionVersion, sessionVersionFromRow, sessionWrites, type AddSessionVersion, type SessionVersionRow } from '../session-rows.js';
import { SqliteConnection } from './sqlite-connection.js';
import type { SqliteDatabase, SqliteMigration, SqliteStoreOptions } from './sqlite-database.js';

/**
 * A version stores only the messages it added; `segment_start` is the
 * version its history starts from (its own number for a compaction), so the
 * history of version v is the added messages of versions segment_start..v.
 */
export const SQLITE_SESSION_MIGRATIONS: readonly SqliteMigration[] = Object.freeze([
  {
    version: 1,
    name: 'create strata_sessions, strata_session_versions, strata_session_messages',
    sql: `CREATE TABLE strata_sessions (
      context_id TEXT PRIMARY KEY,
      latest_version INTEGER NOT NULL
    );
    CREATE TABLE strata_session_versions (
      context_id TEXT NOT NULL,
      version INTEGER NOT NULL,
      segment_start INTEGER NOT NULL,
      compaction TEXT,
      created_at TEXT NOT NULL,
      PRIMARY KEY (context_id, version)
    );
    CREATE TABLE strata_session_messages (
      context_id TEXT NOT NULL,
      version INTEGER NOT NULL,
      position INTEGER NOT NULL,
      message TEXT NOT NULL,
      PRIMARY KEY (context_id, version, position)
    );`,
  },
  {
    version: 2,
    name: 'add strata_session_versions.state (the session state: context state and run state)',
    sql: 'ALTER TABLE strata_session_versions ADD COLUMN state TEXT',
  },
]);

/** Canonical histories in a SQLite file; appends from any connection or process get consecutive versions. */
export function openSqliteSessionStore(options: SqliteStoreOptions): SessionStore {
  const connection = new SqliteConnection({ ...options, component: 'sessions', migrations: SQLITE_SESSION_MIGRATIONS });

  const latest = (database: SqliteDatabase, contextId: string): number =>
    database.prepare<[string], number>('SELECT latest_version FROM strata_sessions WHERE context_id = ?').pluck().get(contextId) ?? 0;

  const build = (database: SqliteDatabase, contextId: string, version: number): SessionVersion | undefined => {
    const row = database
      .prepare<[string, number], SessionVersionRow>('SELECT segment_start, compaction, created_at, state FROM strata_session_versions WHERE context_id = ? AND version = ?')
      .get(contextId, version);
    if (row === undefined) return undefined;
    const texts = database
      .prepare<[string, number, number], string>(
        'SELECT message FROM strata_session_messages WHERE context_id = ? AND version BETWEEN ? AND ? ORDER BY version, position',
      )
      .pluck()
      .all(contextId, row.segment_start, version);
    return sessionVersionFromRow({ contextId, version, row, texts, location: connection.path });
  };

  const add: AddSessionVersion = async (write) =>
    connection.use(write.operation, (database) =>
      // IMMEDIATE takes the write lock before reading the newest version, so
      // concurrent appends (any connection, any process) get consecutive numbers.
      database.transaction(() => {
        const { contextId } = write;
        const newest = latest(database, contextId);
        const previous =
          newest === 0
            ? undefined
            : database
                .prepare<[string, number], { segment_start: number; state: string | null }>('SELECT segment_start, state FROM strata_session_versions WHERE context_id = ? AND version = ?')
                .get(contextId, newest);
        const { version, segmentStart } = nextSessionVersion({ write, newest, previousStart: previous?.segment_start });
        database
          .prepare('INSERT INTO strata_session_versions (context_id, version, segment_start, compaction, created_at, state) VALUES (?, ?, ?, ?, ?, ?)')
          .run(contextId, version, segmentStart, compactionColumn(write.compaction), new Date().toISOString(), write.state ?? previous?.state ?? null);
        const insert = database.prepare('INSERT INTO strata_session_messages (context_id, version, position, message) VALUES (?, ?, ?, ?)');
        write.texts.forEach((text, position) => insert.run(contextId, version, position, text));
        database
          .prepare('INSERT INTO strata_sessions (context_id, latest_version) VALUES (?, ?) ON CONFLICT (context_id) DO UPDATE SET latest_version = excluded.latest_version')
          .run(contextId, version);
        return build(database, contextId, version)!;
      }).immediate(),
    );

  return {
    ...sessionWrites(add),
    async load(contextId: string): Promise<SessionVersion | undefined> {
      requireContextId(contextId, 'load');
      return connection.use('load', (database) =>
        // One read transaction: the newest number and its messages come from the same snapshot.
        database.transaction(() => {
          const newest = latest(database, contextId);
          return newest === 0 ? undefined : build(database, contextId, newest);
        })(),
      );
    },
    async versions(contextId: string): Promise<readonly number[]> {
      requireContextId(contextId, 'versions');
      return connection.use('versions', (database) =>
        database
          .prepare<[string], number>('SELECT version FROM strata_session_versions WHERE context_id = ? ORDER BY version')
          .pluck()
          .all(contextId),
      );
    },
    async loadVersion(contextId: string, version: number): Promise<SessionVersion | undefined> {
      requireContextId(contextId, 'loadVersion');
      requireVersion(version, 'loadVersion');
      return connection.use('loadVersion', (database) => database.transaction(() => build(database, contextId, version))());
    },
    async close(): Promise<void> {
      connection.close();
    },
  };
}
