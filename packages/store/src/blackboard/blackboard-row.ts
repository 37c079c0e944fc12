import type { BlackboardAuthor, BlackboardEntry } from '@strata/blackboard';

/** A blackboard entry as SQLite and PostgreSQL both store it. */
export interface BlackboardRow {
  revision: number;
  tag: string;
  content: string;
  author_kind: BlackboardAuthor['kind'];
  author_name: string | null;
  role: string | null;
  created_at: string;
}

export function entryFromRow(row: BlackboardRow): BlackboardEntry {
  const author: BlackboardAuthor = row.author_kind === 'worker' ? { kind: 'worker', name: row.author_name ?? '' } : { kind: row.author_kind };
  return {
    tag: row.tag,
    content: row.content,
    author,
    ...(row.role === null ? {} : { role: row.role }),
    revision: row.revision,
    createdAt: row.created_at,
  };
}
