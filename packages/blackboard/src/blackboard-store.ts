/** Who wrote an entry: a worker (by skill name), the user, or the runtime itself (archiving, binding). */
export type BlackboardAuthor =
  | { readonly kind: 'worker'; readonly name: string }
  | { readonly kind: 'user' }
  | { readonly kind: 'runtime' };

/** Entry roles the runtime gives meaning to; any other string is kept as written. */
export const ENTRY_ROLE_FINAL = 'final';
export const ENTRY_ROLE_PROCESS = 'process';
export const ENTRY_ROLE_ARCHIVED = 'archived';

/** One write on the blackboard. Entries are immutable; a tag may hold many. */
export interface BlackboardEntry {
  readonly tag: string;
  readonly content: string;
  readonly author: BlackboardAuthor;
  /** What the entry is in its workflow, e.g. `final`, `process`, `archived`. */
  readonly role?: string;
  /** Position in the blackboard's single write order: strictly increasing, never reused. */
  readonly revision: number;
  /** ISO-8601 time of the commit that wrote it. */
  readonly createdAt: string;
}

/**
 * One write of a commit. `append` adds an entry beside the tag's others;
 * `replace` removes the tag's entries first (archiving, a fresh draft).
 */
export interface BlackboardWrite {
  readonly tag: string;
  readonly content: string;
  readonly role?: string;
  readonly mode?: 'append' | 'replace';
}

export interface BlackboardCommit {
  readonly author: BlackboardAuthor;
  readonly writes: readonly BlackboardWrite[];
  /** Revisions of entries to remove before the writes land (archiving); absent revisions are ignored. */
  readonly remove?: readonly number[];
  /** When set, the commit fails with `BlackboardConflictError` unless the head is still at this revision. */
  readonly expectedRevision?: number;
}

export interface BlackboardCommitResult {
  /** The entries written, in write order. */
  readonly entries: readonly BlackboardEntry[];
  /** Head revision after the commit. */
  readonly revision: number;
}

export interface BlackboardQueryOptions {
  readonly signal?: AbortSignal;
}

/** Reads that leave out archived entries. */
export interface BlackboardReadOptions extends BlackboardQueryOptions {
  /** Archived entries (role `archived`) are left out except under these patterns. Default: none. */
  readonly archivedTags?: readonly string[];
}

/**
 * What a store knows of one tag without reading its entries: how many there
 * are, the revision of the oldest (tags are ordered by first write), and the
 * newest entry itself.
 */
export interface BlackboardTagSummary {
  readonly tag: string;
  readonly count: number;
  readonly firstRevision: number;
  readonly newest: BlackboardEntry;
}

export interface BlackboardReadNewestOptions extends BlackboardReadOptions {
  /** Only entries below this revision. Default: all. */
  readonly before?: number;
  /** At most this many entries (a whole number, at least 1). */
  readonly limit: number;
}

/**
 * The tag blackboard. A commit is atomic: every write lands, or none does and
 * the blackboard is as it was (a malformed tag, a conflict, a storage failure).
 * Implemented in memory here and over SQLite in `@strata/store`.
 */
export interface BlackboardStore {
  /**
   * Entries whose tag matches any of the patterns, each entry once, ordered by
   * revision (oldest first). An empty pattern list matches nothing.
   */
  query(patterns: readonly string[], options?: BlackboardQueryOptions): Promise<readonly BlackboardEntry[]>;
  /**
   * One summary per tag matching any of the patterns that holds entries
   * (archived ones counted only where `archivedTags` names them), ordered
   * by first write. Reads an index, not the entries' contents.
   */
  summarizeTags(patterns: readonly string[], options?: BlackboardReadOptions): Promise<readonly BlackboardTagSummary[]>;
  /** One tag's entries, newest first, below `before`, at most `limit` (archived ones as `summarizeTags` counts them). */
  readNewest(tag: string, options: BlackboardReadNewestOptions): Promise<readonly BlackboardEntry[]>;
  commit(commit: BlackboardCommit, options?: BlackboardQueryOptions): Promise<BlackboardCommitResult>;
  /** Revision of the newest commit; 0 for an empty blackboard. */
  headRevision(options?: BlackboardQueryOptions): Promise<number>;
  close(): Promise<void>;
}

/** Label of an author for prompts and listings: `worker:narrator`, `user`, `runtime`. */
export function authorLabel(author: BlackboardAuthor): string {
  return author.kind === 'worker' ? `worker:${author.name}` : author.kind;
}
