import type {
  BlackboardCommit,
  BlackboardCommitResult,
  BlackboardEntry,
  BlackboardQueryOptions,
  BlackboardStore,
} from './blackboard-store.js';
import { matchesAnyTagPattern, parseTagPattern } from './tag-pattern.js';
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
    this.#revision = revision;
    return { entries: writes.map((planned) => planned.entry), revision };
  }

  async headRevision(options: BlackboardQueryOptions = {}): Promise<number> {
    options.signal?.throwIfAborted();
    return this.#revision;
  }

  async close(): Promise<void> {}
}
