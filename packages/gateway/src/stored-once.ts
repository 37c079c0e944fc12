// The client's tool results are stored once per call: a retry that starts its context over (its read rounds were
// already taken in, by this process or one killed mid-stream) gives the same results again.
import type { PutToolOutput, ToolOutputRef, ToolOutputStore } from '@strata/context';

/**
 * `store`, whose `put` gives the reference of the output already stored for
 * the same context and call with the same body instead of storing it again.
 * Without `list` (a store that cannot say what a context holds) every put
 * stores. Costs a `list` of the context per put (a new client result).
 */
export function storedOncePerCall(store: ToolOutputStore): ToolOutputStore {
  return {
    put: async (output: PutToolOutput): Promise<ToolOutputRef> => {
      for (const entry of (await store.list?.(output.contextId)) ?? []) {
        if (entry.toolCallId !== output.toolCallId) continue;
        const stored = await store.get(entry.refId);
        if (stored !== undefined && stored.contextId === output.contextId && stored.body === output.body) return stored.ref;
      }
      return store.put(output);
    },
    get: (refId) => store.get(refId),
    list: store.list === undefined ? undefined : (contextId) => store.list!(contextId),
    close: () => store.close(),
  };
}
