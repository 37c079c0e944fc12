/**
 * Keeps the live SourceKeys of a workspace in (block name, source) order and
 * numbers them, so ranking compares numbers, not strings. Key ids compare in
 * code-unit order, which is (block name, source) order because a block name
 * never holds the NUL separator. Insertion and deletion are a binary search
 * and a splice; ranks are renumbered lazily, once per resolve at most.
 */
export class SourceKeyOrder<Group extends { readonly keyId: string; rank: number }> {
  readonly #sorted: Group[] = [];
  #stale = false;

  insert(group: Group): void {
    this.#sorted.splice(this.#position(group.keyId), 0, group);
    this.#stale = true;
  }

  delete(group: Group): void {
    const position = this.#position(group.keyId);
    if (this.#sorted[position] !== group) return;
    this.#sorted.splice(position, 1);
    this.#stale = true;
  }

  /** Sets every group's `rank` to its position, if anything changed since the last call. */
  renumber(): void {
    if (!this.#stale) return;
    this.#sorted.forEach((group, rank) => {
      group.rank = rank;
    });
    this.#stale = false;
  }

  /** Where `keyId` is, or would be inserted. */
  #position(keyId: string): number {
    let low = 0;
    let high = this.#sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#sorted[middle]!.keyId < keyId) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
