import type { PutToolOutput, StoredToolOutput, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { measureToolOutput, newToolOutputId, validatePut } from '../tool-output-body.js';

export const MEMORY_LOCATION = 'memory:';

/** Keeps bodies in this process only; for tests and throwaway runs. */
export function createMemoryToolOutputStore(): ToolOutputStore {
  const outputs = new Map<string, StoredToolOutput>();
  let closed = false;
  const ensureOpen = (operation: string): void => {
    if (closed) throw new StoreAccessError({ code: 'STORE_CLOSED', location: MEMORY_LOCATION, message: `${operation}: the memory tool-output store is closed` });
  };
  return {
    async put(output: PutToolOutput): Promise<ToolOutputRef> {
      ensureOpen('put');
      validatePut(output);
      const ref: ToolOutputRef = { id: newToolOutputId(), ...measureToolOutput(output.body) };
      outputs.set(ref.id, {
        ref,
        contextId: output.contextId,
        toolCallId: output.toolCallId,
        toolName: output.toolName,
        body: output.body,
        createdAt: new Date().toISOString(),
      });
      return ref;
    },
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      ensureOpen('get');
      const stored = outputs.get(refId);
      return stored === undefined ? undefined : { ...stored, ref: { ...stored.ref } };
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
