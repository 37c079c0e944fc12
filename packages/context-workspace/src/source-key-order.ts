import { mergeSorted } from './merge-sorted.js';

/**
 * Keeps the live SourceKeys of a workspace in (block name, source) order, so
 * a resolve walks blocks already in tie-break order and a trace lists them
 * in its order without sorting strings. Key ids compare in code-unit order,
 * which is (block name, source) order because a block name never holds the
 * NUL separator.
 *
 * Inserts and deletes are O(1): they are queued, and `sorted()` folds them in
 * with one sort of the new keys and one merge, so a burst of registers costs
 * a sort of what it added, not a splice per key.
 */
export class SourceKeyOrder<Group extends { readonly keyId: string }> {
  #sorted: Group[] = [];
  #inserted: Group[] = [];
  #deleted = new Set<Group>();

  /** Adds a group. A group is inserted at most once; a key that returns after its deletion comes back as a new group. */
  insert(group: Group): void {
    this.#inserted.push(group);
    this.#foldWhenLong();
  }

  delete(group: Group): void {
    this.#deleted.add(group);
    this.#foldWhenLong();
  }

  /** Every live group in key order. The returned array is never changed afterwards (a later fold builds a new one). */
  sorted(): readonly Group[] {
    if (this.#inserted.length === 0 && this.#deleted.size === 0) return this.#sorted;
    const live = (group: Group) => !this.#deleted.has(group);
    const kept = this.#deleted.size === 0 ? this.#sorted : this.#sorted.filter(live);
    const added = this.#inserted.filter(live).sort(compareKeyIds);
    this.#sorted = added.length === 0 ? kept : mergeSorted(kept, added, compareKeyIds);
    this.#inserted = [];
    this.#deleted.clear();
    return this.#sorted;
  }

  /** Bounds the queues when nothing reads the order (registers and expires without a resolve): memory stays proportional to the live keys. */
  #foldWhenLong(): void {
    if (this.#inserted.length + this.#deleted.size > this.#sorted.length + QUEUE_SLACK) this.sorted();
  }
}

/** How many queued changes beyond the number of sorted keys trigger a fold. */
const QUEUE_SLACK = 1_024;

function compareKeyIds(left: { readonly keyId: string }, right: { readonly keyId: string }): number {
  return left.keyId < right.keyId ? -1 : left.keyId > right.keyId ? 1 : 0;
}
