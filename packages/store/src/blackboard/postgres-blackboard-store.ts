import {
  parseTagPattern,
  planCommit,
  validateCommit,
  type BlackboardCommit,
  type BlackboardCommitResult,
  type BlackboardEntry,
  type BlackboardQueryOptions,
  type BlackboardStore,
} from '@strata/blackboard';
import { PostgresConnection, type PostgresMigration, type PostgresStoreOptions } from '../postgres/postgres-connection.js';
import { entryFromRow, type BlackboardRow } from './blackboard-row.js';

/** `created_at` is kept as the ISO text the commit planned, so entries read back byte for byte. */
export const POSTGRES_BLACKBOARD_MIGRATIONS: readonly PostgresMigration[] = Object.freeze([
  {
    version: 1,
    name: 'create strata_blackboard_entries and strata_blackboard_heads',
    sql: (schema: string) => `CREATE TABLE ${schema}.strata_blackboard_entries (
      board_id text NOT NULL,
      revision integer NOT NULL,
      tag text NOT NULL,
      content text NOT NULL,
      author_kind text NOT NULL CHECK (author_kind IN ('worker', 'user', 'runtime')),
      author_name text,
      role text,
      created_at text NOT NULL,
      PRIMARY KEY (board_id, revision)
    );
    CREATE INDEX strata_blackboard_entries_tag ON ${schema}.strata_blackboard_entries (board_id, tag);
    CREATE TABLE ${schema}.strata_blackboard_heads (
      board_id text PRIMARY KEY,
      revision integer NOT NULL
    );`,
  },
]);

export interface PostgresBlackboardStoreOptions extends PostgresStoreOptions {
  /** Several blackboards share one schema, each under its own id. */
  readonly boardId: string;
  /** Clock for `createdAt`. Default: the system clock. */
  readonly now?: () => Date;
}

/**
 * A blackboard in PostgreSQL, shared by workers on many machines. Each commit
 * is one transaction that first locks the board's head row (`FOR UPDATE`), so
 * concurrent commits to one board are serialised and a revision-guarded
 * commit sees the head it is checked against. The head is kept apart from the
 * entries, so a removed entry's revision is never reused. Tables are created
 * on first use; the constructor does not connect.
 */
export function openPostgresBlackboardStore(options: PostgresBlackboardStoreOptions): BlackboardStore {
  const { boardId } = options;
  const now = options.now ?? (() => new Date());
  const connection = new PostgresConnection({ ...options, component: 'blackboard', migrations: POSTGRES_BLACKBOARD_MIGRATIONS });
  const entries = connection.table('strata_blackboard_entries');
  const heads = connection.table('strata_blackboard_heads');

  return {
    async query(patterns: readonly string[], queryOptions: BlackboardQueryOptions = {}): Promise<readonly BlackboardEntry[]> {
      queryOptions.signal?.throwIfAborted();
      const parsed = patterns.map((pattern) => parseTagPattern(pattern));
      if (parsed.length === 0) return [];
      const clauses: string[] = [];
      const parameters: string[] = [boardId];
      for (const pattern of parsed) {
        if (pattern.kind === 'all') {
          clauses.push('true');
        } else if (pattern.kind === 'exact') {
          parameters.push(pattern.tag);
          clauses.push(`tag = $${parameters.length}`);
        } else {
          // starts_with and char_length work on characters, so the prefix test is exact for any Unicode.
          parameters.push(pattern.prefix);
          clauses.push(`(starts_with(tag, $${parameters.length}) AND char_length(tag) > char_length($${parameters.length}))`);
        }
      }
      const rows = await connection.use('query', async (client) =>
        (await client.query<BlackboardRow>(`SELECT * FROM ${entries} WHERE board_id = $1 AND (${clauses.join(' OR ')}) ORDER BY revision`, parameters)).rows,
      );
      return rows.map(entryFromRow);
    },

    async commit(commit: BlackboardCommit, commitOptions: BlackboardQueryOptions = {}): Promise<BlackboardCommitResult> {
      commitOptions.signal?.throwIfAborted();
      validateCommit(commit);
      const createdAt = now().toISOString();
      const authorName = commit.author.kind === 'worker' ? commit.author.name : null;
      return connection.transaction('commit', async (client) => {
        await client.query(`INSERT INTO ${heads} (board_id, revision) VALUES ($1, 0) ON CONFLICT (board_id) DO NOTHING`, [boardId]);
        const head = (await client.query<{ revision: number }>(`SELECT revision FROM ${heads} WHERE board_id = $1 FOR UPDATE`, [boardId])).rows[0]!.revision;
        const { writes, revision } = planCommit(commit, { head, createdAt });
        if ((commit.remove ?? []).length > 0) {
          await client.query(`DELETE FROM ${entries} WHERE board_id = $1 AND revision = ANY($2::integer[])`, [boardId, commit.remove]);
        }
        for (const { write, entry } of writes) {
          if (write.mode === 'replace') await client.query(`DELETE FROM ${entries} WHERE board_id = $1 AND tag = $2`, [boardId, write.tag]);
          await client.query(
            `INSERT INTO ${entries} (board_id, revision, tag, content, author_kind, author_name, role, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [boardId, entry.revision, entry.tag, entry.content, commit.author.kind, authorName, entry.role ?? null, createdAt],
          );
        }
        await client.query(`UPDATE ${heads} SET revision = $2 WHERE board_id = $1`, [boardId, revision]);
        return { entries: writes.map((planned) => planned.entry), revision };
      });
    },

    async headRevision(headOptions: BlackboardQueryOptions = {}): Promise<number> {
      headOptions.signal?.throwIfAborted();
      const row = await connection.use('headRevision', async (client) => (await client.query<{ revision: number }>(`SELECT revision FROM ${heads} WHERE board_id = $1`, [boardId])).rows[0]);
      return row?.revision ?? 0;
    },

    async close(): Promise<void> {
      await connection.close();
    },
  };
}
