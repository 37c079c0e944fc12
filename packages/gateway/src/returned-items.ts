// The Responses output items the gateway returned, by id: what an `item_reference` names (the AI SDK's default `store: true`).
import { BoundedCache, type ToolOutputStore } from '@strata/context';
import { isItem, type Item } from './responses-wire.js';

/** The items this process keeps at hand, and their weight at most (the rest are read back from the store). */
const ITEMS_KEPT = 65_536;
const ITEMS_KEPT_BYTES = 64 * 1024 * 1024;
/** The store's tool name of a returned item. */
const ITEM_TOOL_NAME = 'strata-gateway:responses-item';

/** The store context of one returned item: a context of its own, so that a look-up lists one entry. */
const itemContext = (id: string): string => `strata-gateway:responses-item:${id}`;

/**
 * Returned items, kept in the gateway's tool-output store beside its
 * outputs, so that a reference the client sends to any gateway process over
 * the same store (another worker, after a restart) is the item itself, and
 * every process sends the upstream the same bytes. Each store put is the
 * item under its id as the call (a second put of the same item is the same
 * output); a store that fails keeps the item in this process only (a
 * reference it cannot resolve then passes upstream as sent, which stored it).
 */
export class ReturnedItems {
  private readonly kept = new BoundedCache<string, Item>(ITEMS_KEPT, { maxBytes: ITEMS_KEPT_BYTES, bytesOf: (id, item) => 2 * (id.length + JSON.stringify(item).length) });

  constructor(private readonly store: ToolOutputStore) {}

  /** Keeps every item of an answer that has a string id. */
  async remember(items: readonly unknown[]): Promise<void> {
    for (const item of items) {
      if (!isItem(item) || typeof item.id !== 'string') continue;
      const id = item.id;
      if (this.kept.get(id) !== undefined) continue;
      this.kept.set(id, item);
      try {
        await this.store.put({ contextId: itemContext(id), toolCallId: id, toolName: ITEM_TOOL_NAME, body: JSON.stringify(item) });
      } catch {
        // Kept in this process only: see the class comment.
      }
    }
  }

  /** The item returned under `id`, from this process or the store; undefined when none was (or the store cannot say). */
  async recall(id: string): Promise<Item | undefined> {
    const at = this.kept.get(id);
    if (at !== undefined) return at;
    try {
      const [entry] = (await this.store.list?.(itemContext(id))) ?? [];
      const stored = entry === undefined ? undefined : await this.store.get(entry.refId);
      if (stored === undefined) return undefined;
      const item = JSON.parse(stored.body) as unknown;
      if (!isItem(item) || item.id !== id) return undefined;
      this.kept.set(id, item);
      return item;
    } catch {
      return undefined;
    }
  }
}
