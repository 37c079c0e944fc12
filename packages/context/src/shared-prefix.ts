// How much two lists share from their start, by identity, from facts recorded where lists are made from one another,
// so one turn walks the history once and every stage after it starts where the lists differ.
// A list named here is never changed after (facts would go stale): the assembler turns a caller's history, which the caller may
// change in place, into its own copy first.

/**
 * What is known of a list made from others: the lists it was made from,
 * nearest first (at most `FACT_DEPTH`), each by its number (`listIds`) with
 * how many leading entries this list shares with it (by identity). Numbers,
 * not references: a fact never keeps an older history alive (a weak
 * reference would, until the job that made it ends, which a run of
 * synchronous turns never does).
 */
type PrefixFact = readonly { readonly id: number; readonly shared: number }[];

/** Per list, what it shares with the lists it was made from. */
const prefixFacts = new WeakMap<readonly unknown[], PrefixFact>();
/** A number per list a fact names. */
const listIds = new WeakMap<readonly unknown[], number>();
let nextListId = 0;

/** How many lists back a fact reaches: a turn makes a few lists from the last one (compaction passes, compositions). */
const FACT_DEPTH = 8;

function listId(list: readonly unknown[]): number {
  let id = listIds.get(list);
  if (id === undefined) listIds.set(list, (id = nextListId++));
  return id;
}

/**
 * Records that `derived` holds the first `shared` entries of `base` (by
 * identity), for `sharedPrefixLength` to start from. Whoever makes a list
 * from another records it where it knows the answer (the composer, the
 * compactor), and a comparison records what it walked, so one turn walks
 * the history once and every stage after it starts where the lists differ.
 * `shared` must not exceed what the two lists really share: a lower bound
 * is sound (the comparison walks on from it), an over-estimate is not.
 */
export function recordSharedPrefix(base: readonly unknown[], derived: readonly unknown[], shared: number): void {
  if (base === derived || !(shared > 0)) return;
  const own = Math.min(shared, base.length, derived.length);
  const fact = [{ id: listId(base), shared: own }];
  for (const earlier of prefixFacts.get(base) ?? []) {
    if (fact.length === FACT_DEPTH) break;
    fact.push({ id: earlier.id, shared: Math.min(own, earlier.shared) });
  }
  prefixFacts.set(derived, fact);
}

/**
 * A lower bound of what `previous` and `next` share, from the recorded facts:
 * through a list both were made from (or one from the other), at least the
 * smaller of their shares with it. 0 when no fact links them.
 */
function knownSharedPrefix(previous: readonly unknown[], next: readonly unknown[]): number {
  const before = prefixFacts.get(previous);
  const after = prefixFacts.get(next);
  if (after === undefined && before === undefined) return 0;
  const previousId = listIds.get(previous);
  const nextId = listIds.get(next);
  let best = 0;
  for (const link of after ?? []) if (link.id === previousId) best = Math.max(best, link.shared);
  for (const link of before ?? []) if (link.id === nextId) best = Math.max(best, link.shared);
  for (const early of before ?? []) for (const late of after ?? []) if (early.id === late.id) best = Math.max(best, Math.min(early.shared, late.shared));
  return best;
}

/**
 * How many messages two lists share from their start, compared by identity:
 * walked from what the recorded facts already say they share
 * (`recordSharedPrefix`), so a list made from the other costs the entries
 * after the first change, not the whole list. The answer is recorded for a
 * list no fact links yet (a history the caller built).
 */
export function sharedPrefixLength(previous: readonly unknown[], next: readonly unknown[]): number {
  const limit = Math.min(previous.length, next.length);
  if (previous === next) return limit;
  const index = identicalPrefixLength(previous, next, Math.min(limit, knownSharedPrefix(previous, next)));
  // A list's maker knows best what it was made from: the walked answer is kept only for a list without a fact.
  if (!prefixFacts.has(next)) recordSharedPrefix(previous, next, index);
  return index;
}

/**
 * How many entries two lists share from their start, by identity, walked on
 * from `from` (which they must share), without any fact: for a list that may
 * still change, such as a caller's array. `Object.is`, not `===`: the same
 * object is then the same without reading it, where `===` reads each entry
 * to rule out NaN, a cache miss per message across a scattered heap (about
 * ten times slower over a long history).
 */
export function identicalPrefixLength(previous: readonly unknown[], next: readonly unknown[], from: number): number {
  const limit = Math.min(previous.length, next.length);
  let index = from;
  while (index < limit && Object.is(previous[index], next[index])) index += 1;
  return index;
}

/**
 * A copy of the first `count` of `list` (all by default) followed by `more`,
 * with room to grow by half again: a list the next turns append to in place
 * (the assembler's history lists) then grows without being copied again at
 * its first push, as an exact copy is (an engine grows a full array by half
 * its length, copying it): a long history is a large object, and each copy
 * of one is garbage only a full collection frees. One copy of `list` either
 * way: what follows its first `count` is written over or cut off, not sliced
 * away first.
 */
export function roomyCopy<T>(list: readonly T[], more: readonly T[] = [], count: number = list.length): T[] {
  const length = count + more.length;
  const copy = list.concat(new Array<T>(Math.max(0, length - list.length) + (length >> 1) + 16));
  for (let index = 0; index < more.length; index += 1) copy[count + index] = more[index]!;
  copy.length = length;
  return copy;
}
