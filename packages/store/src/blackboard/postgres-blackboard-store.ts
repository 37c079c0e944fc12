import {
  assertReadLimit,
  parseTagPattern,
  planCommit,
  validateCommit,
  type BlackboardCommit,
  type BlackboardCommitResult,
  type BlackboardEntry,
  type BlackboardQueryOptions,
  type BlackboardReadNewestOptions,
  type BlackboardReadOptions,
  type BlackboardStore,
  type BlackboardTagSummary,
  type TagPattern,
} from '@strata/blackboard';
import { PostgresConnection, type PostgresMigration, type PostgresStoreOptions } from '../postgres/postgres-connection.js';
import { entryFromRow, type BlackboardRow } from './blackboard-row.js';

const ENTRY_ROLE_ARCHIVED = 'archived';

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
  {
    version: 2,
    name: 'index strata_blackboard_entries by tag, revision and role',
    // Summaries and newest-first pages of a tag read this index (index-only for the summaries).
    sql: (schema: string) => `CREATE INDEX strata_blackboard_entries_tag_revision ON ${schema}.strata_blackboard_entries (board_id, tag, revision, role);
    DROP INDEX ${schema}.strata_blackboard_entries_tag;`,
  },
]);

/** A WHERE clause matching any of the patterns, its parameters appended to `parameters` ($n numbered after them). */
function patternClause(patterns: readonly TagPattern[], parameters: unknown[]): string {
  const clauses = patterns.map((pattern) => {
    if (pattern.kind === 'all') return 'true';
    parameters.push(pattern.kind === 'exact' ? pattern.tag : pattern.prefix);
    const placeholder = `$${parameters.length}`;
    if (pattern.kind === 'exact') return `tag = ${placeholder}`;
    // starts_with and char_length work on characters, so the prefix test is exact for any Unicode.
    return `(starts_with(tag, ${placeholder}) AND char_length(tag) > char_length(${placeholder}))`;
  });
  return clauses.length === 0 ? 'false' : `(${clauses.join(' OR ')})`;
}

/** Leaves out archived entries except under `archivedTags`. */
function unarchivedClause(options: BlackboardReadOptions, parameters: unknown[]): string {
  const archived = (options.archivedTags ?? []).map((pattern) => parseTagPattern(pattern));
  parameters.push(ENTRY_ROLE_ARCHIVED);
  const role = `$${parameters.length}`;
  return `(role IS NULL OR role <> ${role} OR ${patternClause(archived, parameters)})`;
}

interface SummaryRow extends BlackboardRow {
  entry_count: string;
  first_revision: number;
}

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
      const parameters: unknown[] = [boardId];
      const clause = patternClause(parsed, parameters);
      const rows = await connection.use('query', async (client) =>
        (await client.query<BlackboardRow>(`SELECT * FROM ${entries} WHERE board_id = $1 AND ${clause} ORDER BY revision`, parameters)).rows,
      );
      return rows.map(entryFromRow);
    },

    async summarizeTags(patterns: readonly string[], readOptions: BlackboardReadOptions = {}): Promise<readonly BlackboardTagSummary[]> {
      readOptions.signal?.throwIfAborted();
      const parsed = patterns.map((pattern) => parseTagPattern(pattern));
      if (parsed.length === 0) return [];
      const parameters: unknown[] = [boardId];
      const where = `board_id = $1 AND ${patternClause(parsed, parameters)} AND ${unarchivedClause(readOptions, parameters)}`;
      const rows = await connection.use('summarizeTags', async (client) =>
        (
          await client.query<SummaryRow>(
            `SELECT entries.*, summary.entry_count, summary.first_revision FROM (
               SELECT count(*) AS entry_count, min(revision) AS first_revision, max(revision) AS newest_revision
               FROM ${entries} WHERE ${where} GROUP BY tag
             ) AS summary JOIN ${entries} AS entries ON entries.board_id = $1 AND entries.revision = summary.newest_revision
             ORDER BY summary.first_revision`,
            parameters,
          )
        ).rows,
      );
      return rows.map((row) => ({ tag: row.tag, count: Number(row.entry_count), firstRevision: row.first_revision, newest: entryFromRow(row) }));
    },

    async readNewest(tag: string, readOptions: BlackboardReadNewestOptions): Promise<readonly BlackboardEntry[]> {
      readOptions.signal?.throwIfAborted();
      assertReadLimit(readOptions.limit);
      const parameters: unknown[] = [boardId, tag, readOptions.before ?? 2_147_483_647];
      const unarchived = unarchivedClause(readOptions, parameters);
      parameters.push(readOptions.limit);
      const rows = await connection.use('readNewest', async (client) =>
        (await client.query<BlackboardRow>(`SELECT * FROM ${entries} WHERE board_id = $1 AND tag = $2 AND revision < $3 AND ${unarchived} ORDER BY revision DESC LIMIT $${parameters.length}`, parameters)).rows,
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
