import type { PostgresPoolClient } from './postgres-driver.js';
import type { SessionStore, SessionVersion } from '@strata/context';
import { requireContextId, requireVersion } from '../session-codec.js';
import { compactionColumn, nextSessionVersion, sessionVersionFromRow, sessionWrites, type AddSessionVersion, type SessionVersionRow } from '../session-rows.js';
import { PostgresConnection, type PostgresMigration, type PostgresStoreOptions } from './postgres-connection.js';

/**
 * Same layout as the SQLite store: a version keeps only the messages it
 * added, and `segment_start` is where its history starts. Messages and the
 * compaction record are JSON `text`, not `jsonb`: jsonb refuses `\u0000` and
 * lone surrogates, which a canonical message may carry.
 */
export const POSTGRES_SESSION_MIGRATIONS: readonly PostgresMigration[] = Object.freeze([
  {
    version: 1,
    name: 'create strata_sessions, strata_session_versions, strata_session_messages',
    sql: (schema: string) => `CREATE TABLE ${schema}.strata_sessions (
      context_id text PRIMARY KEY,
      latest_version integer NOT NULL
    );
    CREATE TABLE ${schema}.strata_session_versions (
      context_id text NOT NULL,
      version integer NOT NULL,
      segment_start integer NOT NULL,
      compaction text,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (context_id, version)
    );
    CREATE TABLE ${schema}.strata_session_messages (
      context_id text NOT NULL,
      version integer NOT NULL,
      position integer NOT NULL,
      message text NOT NULL,
      PRIMARY KEY (context_id, version, position)
    );`,
  },
  {
    version: 2,
    name: 'add strata_session_versions.state (the session state: context state and run state)',
    sql: (schema: string) => `ALTER TABLE ${schema}.strata_session_versions ADD COLUMN state text`,
  },
]);

/** Canonical histories in PostgreSQL; concurrent appends from any worker get consecutive versions. */
export function createPostgresSessionStore(options: PostgresStoreOptions): SessionStore {
  const connection = new PostgresConnection({ ...options, component: 'sessions', migrations: POSTGRES_SESSION_MIGRATIONS });
  const sessions = connection.table('strata_sessions');
  const versionsTable = connection.table('strata_session_versions');
  const messagesTable = connection.table('strata_session_messages');

  const latest = async (client: PostgresPoolClient, contextId: string): Promise<number> =>
    (await client.query<{ latest_version: number }>(`SELECT latest_version FROM ${sessions} WHERE context_id = $1`, [contextId])).rows[0]?.latest_version ?? 0;

  const build = async (client: PostgresPoolClient, contextId: string, version: number): Promise<SessionVersion | undefined> => {
    const row = (
      await client.query<SessionVersionRow>(`SELECT segment_start, compaction, created_at, state FROM ${versionsTable} WHERE context_id = $1 AND version = $2`, [contextId, version])
    ).rows[0];
    if (row === undefined) return undefined;
    const texts = (
      await client.query<{ message: string }>(
        `SELECT message FROM ${messagesTable} WHERE context_id = $1 AND version BETWEEN $2 AND $3 ORDER BY version, position`,
        [contextId, row.segment_start, version],
      )
    ).rows.map((entry) => entry.message);
    return sessionVersionFromRow({ contextId, version, row, texts, location: connection.location });
  };

  const add: AddSessionVersion = (write) =>
    connection.transaction(write.operation, async (client) => {
      const { contextId } = write;
      // The row lock on strata_sessions serializes writers of one context across all workers.
      await client.query(`INSERT INTO ${sessions} (context_id, latest_version) VALUES ($1, 0) ON CONFLICT (context_id) DO NOTHING`, [contextId]);
      const newest = (await client.query<{ latest_version: number }>(`SELECT latest_version FROM ${sessions} WHERE context_id = $1 FOR UPDATE`, [contextId])).rows[0]!
        .latest_version;
      const previous =
        newest === 0
          ? undefined
          : (await client.query<{ segment_start: number; state: string | null }>(`SELECT segment_start, state FROM ${versionsTable} WHERE context_id = $1 AND version = $2`, [contextId, newest]))
              .rows[0];
      const { version, segmentStart } = nextSessionVersion({ write, newest, previousStart: previous?.segment_start });
      await client.query(`INSERT INTO ${versionsTable} (context_id, version, segment_start, compaction, created_at, state) VALUES ($1, $2, $3, $4, $5, $6)`, [
        contextId,
        version,
        segmentStart,
        compactionColumn(write.compaction),
        new Date().toISOString(),
        write.state ?? previous?.state ?? null,
      ]);
      if (write.texts.length > 0) {
        await client.query(
          `INSERT INTO ${messagesTable} (context_id, version, position, message)
           SELECT $1, $2, entry.ordinality - 1, entry.message FROM unnest($3::text[]) WITH ORDINALITY AS entry(message, ordinality)`,
          [contextId, version, write.texts],
        );
      }
      await client.query(`UPDATE ${sessions} SET latest_version = $2 WHERE context_id = $1`, [contextId, version]);
      return (await build(client, contextId, version))!;
    });

  return {
    ...sessionWrites(add),
    async load(contextId: string): Promise<SessionVersion | undefined> {
      requireContextId(contextId, 'load');
      // REPEATABLE READ: the newest number and its messages come from one snapshot.
      return connection.use('load', async (client) => {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        try {
          const newest = await latest(client, contextId);
          return newest === 0 ? undefined : await build(client, contextId, newest);
        } finally {
          await client.query('COMMIT').catch(() => undefined);
        }
      });
    },
    async versions(contextId: string): Promise<readonly number[]> {
      requireContextId(contextId, 'versions');
      return connection.use('versions', async (client) =>
        (await client.query<{ version: number }>(`SELECT version FROM ${versionsTable} WHERE context_id = $1 ORDER BY version`, [contextId])).rows.map((row) => row.version),
      );
    },
    async loadVersion(contextId: string, version: number): Promise<SessionVersion | undefined> {
      requireContextId(contextId, 'loadVersion');
      requireVersion(version, 'loadVersion');
      return connection.use('loadVersion', (client) => build(client, contextId, version));
    },
    async close(): Promise<void> {
      await connection.close();
    },
  };
}
