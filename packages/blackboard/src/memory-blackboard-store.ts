import type {
  BlackboardCommit,
  BlackboardCommitResult,
  BlackboardEntry,
  BlackboardQueryOptions,
  BlackboardStore,
} from './blackboard-store.js';
import { BlackboardConflictError } from './errors/blackboard-conflict-error.js';
import { matchesAnyTagPattern, parseTagPattern } from './tag-pattern.js';
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
    if (commit.expectedRevision !== undefined && commit.expectedRevision !== this.#revision) {
      throw new BlackboardConflictError({ expectedRevision: commit.expectedRevision, actualRevision: this.#revision });
    }
    const createdAt = this.#now().toISOString();
    const removed = new Set(commit.remove ?? []);
    let next = this.#entries.filter((entry) => !removed.has(entry.revision));
    let revision = this.#revision;
    const written: BlackboardEntry[] = [];
    for (const write of commit.writes) {
      if (write.mode === 'replace') next = next.filter((entry) => entry.tag !== write.tag);
      revision += 1;
      const entry: BlackboardEntry = {
        tag: write.tag,
        content: write.content,
        author: commit.author,
        ...(write.role === undefined ? {} : { role: write.role }),
        revision,
        createdAt,
      };
      next.push(entry);
      written.push(entry);
    }
    this.#entries = next;
    this.#revision = revision;
    return { entries: written, revision };
  }

  async headRevision(options: BlackboardQueryOptions = {}): Promise<number> {
    options.signal?.throwIfAborted();
    return this.#revision;
  }

  async close(): Promise<void> {}
}
