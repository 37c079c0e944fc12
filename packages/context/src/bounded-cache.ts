/** A byte bound for a `BoundedCache`: the most its entries may weigh, and how much one weighs. */
export interface CacheByteBound<Key, Value> {
  /** The most bytes the kept entries may weigh together. */
  readonly maxBytes: number;
  /** Bytes one entry holds (an estimate: a string's two bytes per character, say), taken when it is set. */
  readonly bytesOf: (key: Key, value: Value) => number;
}

/**
 * A map that keeps its most recently used `capacity` entries, and, given a
 * byte bound, no more than `maxBytes` of them by weight: the one eviction
 * rule of every per-context cache (a `Map` keeps insertion order, so a read
 * moves its key to the end and the oldest key is the first). The newest
 * entry is always kept, even alone over the bound. Hand-written: a few dozen
 * lines, where a library would be a dependency of the pure package.
 */
export class BoundedCache<Key, Value> {
  private readonly entries = new Map<Key, { value: Value; bytes: number }>();
  private bytes = 0;

  constructor(
    readonly capacity: number,
    private readonly bound?: CacheByteBound<Key, Value>,
  ) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`BoundedCache capacity must be a positive integer, got ${String(capacity)}`);
    if (bound !== undefined && !(Number.isFinite(bound.maxBytes) && bound.maxBytes > 0 && typeof bound.bytesOf === 'function')) {
      throw new RangeError(`BoundedCache maxBytes must be a positive number with a bytesOf function, got ${String(bound.maxBytes)}`);
    }
  }

  /** The value, marked as just used; undefined when absent. */
  get(key: Key): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Sets the value as the most recent, evicting the least recently used entries while over capacity or the byte bound. */
  set(key: Key, value: Value): void {
    this.delete(key);
    const bytes = this.bound ? this.bound.bytesOf(key, value) : 0;
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    while (this.entries.size > this.capacity || (this.bound !== undefined && this.bytes > this.bound.maxBytes && this.entries.size > 1)) {
      this.delete(this.entries.keys().next().value as Key);
    }
  }

  /** The value, or the one `create` makes, kept as the most recent. */
  getOrCreate(key: Key, create: () => Value): Value {
    let value = this.get(key);
    if (value === undefined) this.set(key, (value = create()));
    return value;
  }

  /** Forgets the key; true when it was kept. */
  delete(key: Key): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** What the kept entries weigh by the byte bound; 0 without one. */
  get weight(): number {
    return this.bytes;
  }
}
