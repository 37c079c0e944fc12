import type {
  BlackboardCommit,
  BlackboardCommitResult,
  BlackboardEntry,
  BlackboardQueryOptions,
  BlackboardReadNewestOptions,
  BlackboardReadOptions,
  BlackboardStore,
  BlackboardTagSummary,
} from './blackboard-store.js';
import { ENTRY_ROLE_ARCHIVED } from './blackboard-store.js';
import { assertReadLimit } from './read-limit.js';
import { matchesAnyTagPattern, parseTagPattern, type TagPattern } from './tag-pattern.js';
import { planCommit } from './plan-commit.js';
import { validateCommit } from './validate-commit.js';

export interface MemoryBlackboardStoreOptions {
  /** Clock for `createdAt`. Default: the system clock. */
  readonly now?: () => Date;
  /** Entries to start from (their revisions are kept). */
  readonly entries?: readonly BlackboardEntry[];
}

/**
 * The in-memory blackboard. A commit builds the next entry list aside and
 * swaps it in whole, so a failed commit changes nothing.
 */
export class MemoryBlackboardStore implements BlackboardStore {
  #entries: readonly BlackboardEntry[];
  /** Per tag: every entry and the unarchived ones, oldest first; rebuilt on the first read after a commit. */
  #byTag: Map<string, { all: BlackboardEntry[]; unarchived: BlackboardEntry[] }> | undefined;
  #revision: number;
  readonly #now: () => Date;

  constructor(options: MemoryBlackboardStoreOptions = {}) {
    this.#entries = [...(options.entries ?? [])].sort((left, right) => left.revision - right.revision);
    this.#revision = this.#entries.reduce((highest, entry) => Math.max(highest, entry.revision), 0);
    this.#now = options.now ?? (() => new Date());
  }

  async query(patterns: readonly string[], options: BlackboardQueryOptions = {}): Promise<readonly BlackboardEntry[]> {
    options.signal?.throwIfAborted();
    const parsed = patterns.map((pattern) => parseTagPattern(pattern));
    return this.#entries.filter((entry) => matchesAnyTagPattern(parsed, entry.tag));
  }

  async summarizeTags(patterns: readonly string[], options: BlackboardReadOptions = {}): Promise<readonly BlackboardTagSummary[]> {
    options.signal?.throwIfAborted();
    const parsed = patterns.map((pattern) => parseTagPattern(pattern));
    const archived = (options.archivedTags ?? []).map((pattern) => parseTagPattern(pattern));
    const summaries: BlackboardTagSummary[] = [];
    for (const tag of this.#tagMap().keys()) {
      if (!matchesAnyTagPattern(parsed, tag)) continue;
      const kept = this.#tagEntries(tag, archived);
      const newest = kept.at(-1);
      if (newest === undefined) continue;
      summaries.push({ tag, count: kept.length, firstRevision: (kept[0] as BlackboardEntry).revision, newest });
    }
    return summaries.sort((left, right) => left.firstRevision - right.firstRevision);
  }

  async readNewest(tag: string, options: BlackboardReadNewestOptions): Promise<readonly BlackboardEntry[]> {
    options.signal?.throwIfAborted();
    assertReadLimit(options.limit);
    const archived = (options.archivedTags ?? []).map((pattern) => parseTagPattern(pattern));
    const kept = this.#tagEntries(tag, archived);
    const before = options.before ?? Number.POSITIVE_INFINITY;
    // Binary search for the first entry at or above `before`.
    let low = 0;
    let high = kept.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((kept[middle] as BlackboardEntry).revision < before) low = middle + 1;
      else high = middle;
    }
    return kept.slice(Math.max(0, low - options.limit), low).reverse();
  }

  #tagMap(): Map<string, { all: BlackboardEntry[]; unarchived: BlackboardEntry[] }> {
    if (this.#byTag !== undefined) return this.#byTag;
    const byTag = new Map<string, { all: BlackboardEntry[]; unarchived: BlackboardEntry[] }>();
    for (const entry of this.#entries) {
      let lists = byTag.get(entry.tag);
      if (lists === undefined) byTag.set(entry.tag, (lists = { all: [], unarchived: [] }));
      lists.all.push(entry);
      if (entry.role !== ENTRY_ROLE_ARCHIVED) lists.unarchived.push(entry);
    }
    this.#byTag = byTag;
    return byTag;
  }

  #tagEntries(tag: string, archived: readonly TagPattern[]): readonly BlackboardEntry[] {
    const lists = this.#tagMap().get(tag);
    if (lists === undefined) return [];
    return matchesAnyTagPattern(archived, tag) ? lists.all : lists.unarchived;
  }

  async commit(commit: BlackboardCommit, options: BlackboardQueryOptions = {}): Promise<BlackboardCommitResult> {
    options.signal?.throwIfAborted();
    validateCommit(commit);
    const { writes, revision } = planCommit(commit, { head: this.#revision, createdAt: this.#now().toISOString() });
    const removed = new Set(commit.remove ?? []);
    let next = this.#entries.filter((entry) => !removed.has(entry.revision));
    for (const { write, entry } of writes) {
      if (write.mode === 'replace') next = next.filter((kept) => kept.tag !== write.tag);
      next.push(entry);
    }
    this.#entries = next;
    this.#byTag = undefined;
    this.#revision = revision;
    return { entries: writes.map((planned) => planned.entry), revision };
  }

  async headRevision(options: BlackboardQueryOptions = {}): Promise<number> {
    options.signal?.throwIfAborted();
    return this.#revision;
  }

  async close(): Promise<void> {}
}
