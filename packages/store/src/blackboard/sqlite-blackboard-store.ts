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
import { SqliteConnection } from '../sqlite/sqlite-connection.js';
import type { SqliteMigration, SqliteStoreOptions } from '../sqlite/sqlite-database.js';
import { entryFromRow, type BlackboardRow } from './blackboard-row.js';

const ENTRY_ROLE_ARCHIVED = 'archived';

export const SQLITE_BLACKBOARD_MIGRATIONS: readonly SqliteMigration[] = Object.freeze([
  {
    version: 1,
    name: 'create strata_blackboard_entries and strata_blackboard_heads',
    sql: `CREATE TABLE strata_blackboard_entries (
      board_id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      tag TEXT NOT NULL,
      content TEXT NOT NULL,
      author_kind TEXT NOT NULL CHECK (author_kind IN ('worker', 'user', 'runtime')),
      author_name TEXT,
      role TEXT,
      created_at TEXT NOT NULL,
      PRIMARY KEY (board_id, revision)
    );
    CREATE INDEX strata_blackboard_entries_tag ON strata_blackboard_entries (board_id, tag);
    CREATE TABLE strata_blackboard_heads (
      board_id TEXT PRIMARY KEY,
      revision INTEGER NOT NULL
    );`,
  },
  {
    version: 2,
    name: 'index strata_blackboard_entries by tag, revision and role',
    // Summaries and newest-first pages of a tag read this index alone (and content by row).
    sql: `CREATE INDEX strata_blackboard_entries_tag_revision ON strata_blackboard_entries (board_id, tag, revision, role);
    DROP INDEX strata_blackboard_entries_tag;`,
  },
]);

/** A WHERE clause matching any of the patterns, its parameters appended to `parameters`. */
function patternClause(patterns: readonly TagPattern[], parameters: (string | number)[]): string {
  const clauses = patterns.map((pattern) => {
    if (pattern.kind === 'all') return '1';
    if (pattern.kind === 'exact') {
      parameters.push(pattern.tag);
      return 'tag = ?';
    }
    // substr and length count characters on both sides, so the prefix test is exact for any Unicode.
    parameters.push(pattern.prefix, pattern.prefix, pattern.prefix);
    return '(substr(tag, 1, length(?)) = ? AND length(tag) > length(?))';
  });
  return clauses.length === 0 ? '0' : `(${clauses.join(' OR ')})`;
}

/** Leaves out archived entries except under `archivedTags`. */
function unarchivedClause(options: BlackboardReadOptions, parameters: (string | number)[]): string {
  const archived = (options.archivedTags ?? []).map((pattern) => parseTagPattern(pattern));
  parameters.push(ENTRY_ROLE_ARCHIVED);
  return `(role IS NULL OR role <> ? OR ${patternClause(archived, parameters)})`;
}

interface SummaryRow extends BlackboardRow {
  entry_count: number;
  first_revision: number;
}

export interface SqliteBlackboardStoreOptions extends SqliteStoreOptions {
  /** Several blackboards share one file, each under its own id. */
  readonly boardId: string;
  /** Clock for `createdAt`. Default: the system clock. */
  readonly now?: () => Date;
}

/**
 * A blackboard in a SQLite file. Each commit is one IMMEDIATE transaction:
 * the head check, removals and writes land together or not at all. The head
 * revision is kept apart from the entries, so a removed entry's revision is
 * never reused.
 */
export function openSqliteBlackboardStore(options: SqliteBlackboardStoreOptions): BlackboardStore {
  const { boardId } = options;
  const now = options.now ?? (() => new Date());
  const connection = new SqliteConnection({ ...options, component: 'blackboard', migrations: SQLITE_BLACKBOARD_MIGRATIONS });
  const head = (database: Parameters<Parameters<SqliteConnection['use']>[1]>[0]): number =>
    database.prepare<[string], number>('SELECT revision FROM strata_blackboard_heads WHERE board_id = ?').pluck().get(boardId) ?? 0;

  return {
    async query(patterns: readonly string[], queryOptions: BlackboardQueryOptions = {}): Promise<readonly BlackboardEntry[]> {
      queryOptions.signal?.throwIfAborted();
      const parsed = patterns.map((pattern) => parseTagPattern(pattern));
      if (parsed.length === 0) return [];
      const parameters: (string | number)[] = [boardId];
      const clause = patternClause(parsed, parameters);
      return connection.use('query', (database) =>
        database
          .prepare<(string | number)[], BlackboardRow>(`SELECT * FROM strata_blackboard_entries WHERE board_id = ? AND ${clause} ORDER BY revision`)
          .all(...parameters)
          .map(entryFromRow),
      );
    },

    async summarizeTags(patterns: readonly string[], readOptions: BlackboardReadOptions = {}): Promise<readonly BlackboardTagSummary[]> {
      readOptions.signal?.throwIfAborted();
      const parsed = patterns.map((pattern) => parseTagPattern(pattern));
      if (parsed.length === 0) return [];
      const parameters: (string | number)[] = [boardId];
      const where = `board_id = ? AND ${patternClause(parsed, parameters)} AND ${unarchivedClause(readOptions, parameters)}`;
      parameters.push(boardId);
      const rows = connection.use('summarizeTags', (database) =>
        database
          .prepare<(string | number)[], SummaryRow>(
            `SELECT entries.*, summary.entry_count, summary.first_revision FROM (
               SELECT count(*) AS entry_count, min(revision) AS first_revision, max(revision) AS newest_revision
               FROM strata_blackboard_entries WHERE ${where} GROUP BY tag
             ) AS summary JOIN strata_blackboard_entries AS entries ON entries.board_id = ? AND entries.revision = summary.newest_revision
             ORDER BY summary.first_revision`,
          )
          .all(...parameters),
      );
      return rows.map((row) => ({ tag: row.tag, count: row.entry_count, firstRevision: row.first_revision, newest: entryFromRow(row) }));
    },

    async readNewest(tag: string, readOptions: BlackboardReadNewestOptions): Promise<readonly BlackboardEntry[]> {
      readOptions.signal?.throwIfAborted();
      assertReadLimit(readOptions.limit);
      const parameters: (string | number)[] = [boardId, tag, readOptions.before ?? Number.MAX_SAFE_INTEGER];
      const unarchived = unarchivedClause(readOptions, parameters);
      parameters.push(readOptions.limit);
      return connection.use('readNewest', (database) =>
        database
          .prepare<(string | number)[], BlackboardRow>(`SELECT * FROM strata_blackboard_entries WHERE board_id = ? AND tag = ? AND revision < ? AND ${unarchived} ORDER BY revision DESC LIMIT ?`)
          .all(...parameters)
          .map(entryFromRow),
      );
    },

    async commit(commit: BlackboardCommit, commitOptions: BlackboardQueryOptions = {}): Promise<BlackboardCommitResult> {
      commitOptions.signal?.throwIfAborted();
      validateCommit(commit);
      const createdAt = now().toISOString();
      const authorName = commit.author.kind === 'worker' ? commit.author.name : null;
      return connection.use('commit', (database) =>
        database
          .transaction((): BlackboardCommitResult => {
            const { writes, revision } = planCommit(commit, { head: head(database), createdAt });
            const removeRevision = database.prepare('DELETE FROM strata_blackboard_entries WHERE board_id = ? AND revision = ?');
            for (const removed of commit.remove ?? []) removeRevision.run(boardId, removed);
            const removeTag = database.prepare('DELETE FROM strata_blackboard_entries WHERE board_id = ? AND tag = ?');
            const insert = database.prepare(
              'INSERT INTO strata_blackboard_entries (board_id, revision, tag, content, author_kind, author_name, role, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            );
            for (const { write, entry } of writes) {
              if (write.mode === 'replace') removeTag.run(boardId, write.tag);
              insert.run(boardId, entry.revision, entry.tag, entry.content, commit.author.kind, authorName, entry.role ?? null, createdAt);
            }
            database
              .prepare('INSERT INTO strata_blackboard_heads (board_id, revision) VALUES (?, ?) ON CONFLICT (board_id) DO UPDATE SET revision = excluded.revision')
              .run(boardId, revision);
            return { entries: writes.map((planned) => planned.entry), revision };
          })
          .immediate(),
      );
    },

    async headRevision(headOptions: BlackboardQueryOptions = {}): Promise<number> {
      headOptions.signal?.throwIfAborted();
      return connection.use('headRevision', head);
    },

    async close(): Promise<void> {
      connection.close();
    },
  };
}
