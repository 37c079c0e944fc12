import { ConfigurationError } from '@strata/context';
import type { BlackboardEntry, BlackboardTagSummary } from './blackboard-store.js';

/** The position of the oldest entry (lowest revision, then first listed). */
function oldestPosition(entries: readonly BlackboardEntry[], positions: readonly number[]): number {
  let oldest = positions[0] as number;
  for (const position of positions) if ((entries[position] as BlackboardEntry).revision < (entries[oldest] as BlackboardEntry).revision) oldest = position;
  return oldest;
}

/** A tag's entries `fromEntries` orders as it groups them, the newest ones. */
const NEWEST_KEPT = 16;

interface TagGroup {
  count: number;
  /** Position and revision of the oldest entry (lowest revision, then first listed). */
  oldest: number;
  oldestRevision: number;
  /** Positions of the newest `NEWEST_KEPT` entries, newest first, and the revision of the last of them. */
  readonly newest: number[];
  floor: number;
}

/** Entries an unordered column orders at least, when asked for any. */
const MIN_SELECTED = 16;

/** One tag's entries: `position` orders equal revisions as the caller listed them. */
class TagColumn {
  readonly tag: string;
  readonly count: number;
  /** Revision, then position, of the tag's oldest entry. */
  readonly firstRevision: number;
  readonly firstPosition: number;
  /**
   * Positions into the index's entry list: the tag's entries as listed (newest first when they were listed in order);
   * undefined until needed when the column was built knowing only its newest few (`#ordered`), then found by `#list`.
   */
  #positions: number[] | undefined;
  readonly #list: (() => number[]) | undefined;
  readonly #entries: readonly BlackboardEntry[];
  /** The newest positions ordered so far, newest first (all of them when the tag was listed in order). */
  #ordered: number[] | undefined;

  constructor(options: { tag: string; count: number; firstRevision: number; firstPosition: number; entries: readonly BlackboardEntry[] } & ({ positions: number[]; inOrder: boolean } | { newest: number[]; list: () => number[] })) {
    this.tag = options.tag;
    this.count = options.count;
    this.firstRevision = options.firstRevision;
    this.firstPosition = options.firstPosition;
    this.#entries = options.entries;
    if ('newest' in options) {
      this.#ordered = options.newest;
      this.#list = options.list;
      return;
    }
    this.#positions = options.positions;
    if (options.inOrder) {
      this.#positions.reverse();
      this.#ordered = this.#positions;
    }
  }

  /** Number of entries held (the newest `loaded` of `count`). */
  get loaded(): number {
    return this.#positions?.length ?? this.count;
  }

  /** Position of the `rank`-th newest entry (0: the newest); undefined past the tag's entries. */
  position(rank: number): number | undefined {
    if (rank >= this.count) return undefined;
    if (rank >= this.loaded) {
      throw new ConfigurationError({
        setting: 'board',
        message: `the board holds the newest ${this.loaded} of ${this.count} entries of ${this.tag}, and this assembly needs more: fetch and assemble with the same contract, order table and estimator`,
      });
    }
    if (this.#ordered === undefined || rank >= this.#ordered.length) this.#select(rank + 1);
    return (this.#ordered as number[])[rank];
  }

  /** Whether the `rank`-th newest entry is held, past the tag's entries, or on the board but not read. */
  holds(rank: number): 'held' | 'past' | 'unread' {
    return rank >= this.count ? 'past' : rank >= this.loaded ? 'unread' : 'held';
  }

  entry(rank: number): BlackboardEntry | undefined {
    const position = this.position(rank);
    return position === undefined ? undefined : this.#entries[position];
  }

  #newer(left: number, right: number): boolean {
    const difference = (this.#entries[left] as BlackboardEntry).revision - (this.#entries[right] as BlackboardEntry).revision;
    return difference > 0 || (difference === 0 && left > right);
  }

  /**
   * Orders (newest first) at least the newest `wanted` of an unordered
   * column: one pass keeping the newest few, growing fourfold when more are
   * asked, and a whole sort once that is most of the column.
   */
  #select(wanted: number): void {
    const positions = (this.#positions ??= (this.#list as () => number[])());
    const keep = Math.max(wanted, 4 * (this.#ordered?.length ?? 0), MIN_SELECTED);
    if (keep * 4 >= positions.length) {
      this.#ordered = [...positions].sort((left, right) => (this.#newer(left, right) ? -1 : 1));
      return;
    }
    const kept: number[] = [];
    for (const position of positions) {
      if (kept.length === keep && !this.#newer(position, kept[keep - 1] as number)) continue;
      let low = 0;
      let high = kept.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (this.#newer(kept[middle] as number, position)) low = middle + 1;
        else high = middle;
      }
      kept.splice(low, 0, position);
      if (kept.length > keep) kept.pop();
    }
    this.#ordered = kept;
  }
}

/**
 * Blackboard entries kept per tag, each tag's newest first, so that a
 * worker's prompt costs what its segments take, not the board. Built in one
 * pass over an entry list (the newest k of a tag then cost one pass over the
 * tag, nothing when the list is in revision order), or from what a store read for a
 * contract: the summary of every tag and the newest entries its segments
 * need. Equal revisions keep the order in which they were listed.
 */
export class BlackboardIndex {
  readonly #columns: Map<string, TagColumn>;
  readonly #entries: readonly BlackboardEntry[];

  private constructor(entries: readonly BlackboardEntry[], columns: Map<string, TagColumn>) {
    this.#entries = entries;
    this.#columns = columns;
  }

  /** Every entry of the list, grouped by tag in one pass. */
  static fromEntries(entries: readonly BlackboardEntry[]): BlackboardIndex {
    // One pass, per tag: its count, its oldest entry and its newest few, newest first (a later listed entry with the
    // same revision is the newer). A tag's whole list is found only when more of it is asked for.
    const groups = new Map<string, TagGroup>();
    for (let position = 0; position < entries.length; position += 1) {
      const entry = entries[position] as BlackboardEntry;
      const { revision } = entry;
      const group = groups.get(entry.tag);
      if (group === undefined) {
        groups.set(entry.tag, { count: 1, oldest: position, oldestRevision: revision, newest: [position], floor: revision });
        continue;
      }
      group.count += 1;
      if (revision < group.oldestRevision) {
        group.oldest = position;
        group.oldestRevision = revision;
      }
      const newest = group.newest;
      if (newest.length === NEWEST_KEPT && revision < group.floor) continue;
      // Newer than the last kept (a later position wins a tie): placed by revision, newest first.
      let at = newest.length;
      while (at > 0 && (entries[newest[at - 1] as number] as BlackboardEntry).revision <= revision) at -= 1;
      newest.splice(at, 0, position);
      if (newest.length > NEWEST_KEPT) newest.pop();
      group.floor = (entries[newest[newest.length - 1] as number] as BlackboardEntry).revision;
    }
    const columns = new Map<string, TagColumn>();
    for (const [tag, group] of groups) {
      const list = (): number[] => {
        const positions: number[] = [];
        for (let position = 0; position < entries.length; position += 1) if ((entries[position] as BlackboardEntry).tag === tag) positions.push(position);
        return positions;
      };
      columns.set(tag, new TagColumn({ tag, count: group.count, firstRevision: group.oldestRevision, firstPosition: group.oldest, entries, newest: group.newest, list }));
    }
    return new BlackboardIndex(entries, columns);
  }

  /**
   * The tags a store summarised, with the newest entries read of each:
   * `entries` must hold, for each tag, a run of its newest entries (the
   * summary's newest among them).
   */
  static fromSummaries(summaries: readonly BlackboardTagSummary[], entries: readonly BlackboardEntry[]): BlackboardIndex {
    const byTag = new Map<string, number[]>();
    for (let position = 0; position < entries.length; position += 1) {
      const { tag } = entries[position] as BlackboardEntry;
      const positions = byTag.get(tag);
      if (positions === undefined) byTag.set(tag, [position]);
      else positions.push(position);
    }
    const columns = new Map<string, TagColumn>();
    for (const summary of summaries) {
      const positions = byTag.get(summary.tag) ?? [];
      const inOrder = positions.every((position, index) => index === 0 || (entries[position] as BlackboardEntry).revision > (entries[positions[index - 1] as number] as BlackboardEntry).revision);
      columns.set(summary.tag, new TagColumn({ tag: summary.tag, count: summary.count, firstRevision: summary.firstRevision, firstPosition: 0, positions, entries, inOrder }));
    }
    return new BlackboardIndex(entries, columns);
  }

  /** The tags with entries, in no particular order. */
  tags(): IterableIterator<string> {
    return this.#columns.keys();
  }

  /** Number of entries of the tag on the board (0 for an unknown tag). */
  count(tag: string): number {
    return this.#columns.get(tag)?.count ?? 0;
  }

  /** The tag's `rank`-th newest entry (0: the newest). */
  newest(tag: string, rank = 0): BlackboardEntry | undefined {
    return this.#columns.get(tag)?.entry(rank);
  }

  /** Orders tags by first write: the revision of their oldest entry (then list position). Negative when `left` came first. */
  compareFirstWrite(left: string, right: string): number {
    const a = this.#columns.get(left) as TagColumn;
    const b = this.#columns.get(right) as TagColumn;
    return a.firstRevision - b.firstRevision || a.firstPosition - b.firstPosition;
  }

  /**
   * The newest `limit` entries across the given tags, newest first
   * (ties in revision: the later listed first). Fewer when the tags hold
   * fewer, or when the next newest may be an entry a store did not read.
   */
  newestAcross(tags: readonly string[], limit: number): BlackboardEntry[] {
    const columns = tags.map((tag) => this.#columns.get(tag)).filter((column): column is TagColumn => column !== undefined);
    const ranks = columns.map(() => 0);
    const taken: BlackboardEntry[] = [];
    while (taken.length < limit) {
      let best = -1;
      let bestPosition = -1;
      for (let index = 0; index < columns.length; index += 1) {
        const column = columns[index] as TagColumn;
        const held = column.holds(ranks[index] as number);
        if (held === 'unread') return taken;
        if (held === 'past') continue;
        const position = column.position(ranks[index] as number) as number;
        if (best === -1 || this.#newerPosition(position, bestPosition)) {
          best = index;
          bestPosition = position;
        }
      }
      if (best === -1) break;
      ranks[best] = (ranks[best] as number) + 1;
      taken.push(this.#entries[bestPosition] as BlackboardEntry);
    }
    return taken;
  }

  /** The newest entry across the tags. */
  newestOf(tags: readonly string[]): BlackboardEntry | undefined {
    return this.newestAcross(tags, 1)[0];
  }

  #newerPosition(left: number, right: number): boolean {
    const difference = (this.#entries[left] as BlackboardEntry).revision - (this.#entries[right] as BlackboardEntry).revision;
    return difference > 0 || (difference === 0 && left > right);
  }
}
