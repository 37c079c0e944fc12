/**
 * A map that keeps its most recently used `capacity` entries: the one
 * eviction rule of every per-context cache (a `Map` keeps insertion order,
 * so a read moves its key to the end and the oldest key is the first).
 * Hand-written: a dozen lines, where a library would be a dependency of the
 * pure package.
 */
export class BoundedCache<Key, Value> {
  private readonly entries = new Map<Key, Value>();

  constructor(readonly capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`BoundedCache capacity must be a positive integer, got ${String(capacity)}`);
  }

  /** The value, marked as just used; undefined when absent. */
  get(key: Key): Value | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Sets the value as the most recent, evicting the least recently used entry when full. */
  set(key: Key, value: Value): void {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as Key);
    this.entries.set(key, value);
  }

  /** The value, or the one `create` makes, kept as the most recent. */
  getOrCreate(key: Key, create: () => Value): Value {
    let value = this.get(key);
    if (value === undefined) this.set(key, (value = create()));
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
