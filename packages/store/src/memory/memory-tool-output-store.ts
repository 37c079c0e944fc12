import type { PutToolOutput, PutToolOutputStream, StoredToolOutput, StoredToolOutputEntry, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { newToolOutputId, validatePut } from '../tool-output-body.js';
import { writePieces } from '../tool-output-pieces.js';

export const MEMORY_LOCATION = 'memory:';

interface MemoryOutput extends StoredToolOutput {
  /** SHA-256 of the body's pieces as `writePieces` encodes them. */
  readonly sha256: string;
}

/**
 * Keeps bodies in this process only; for tests and throwaway runs. Bodies go
 * through the same pieces and SHA-256 as the SQL stores (checked on read by
 * encoding the pieces again); each is kept as one string, so a read makes
 * no copy (a streamed body is joined once, when its last chunk arrives).
 */
export function createMemoryToolOutputStore(): ToolOutputStore {
  const outputs = new Map<string, MemoryOutput>();
  let closed = false;
  const ensureOpen = (operation: string): void => {
    if (closed) throw new StoreAccessError({ code: 'STORE_CLOSED', location: MEMORY_LOCATION, message: `${operation}: the memory tool-output store is closed` });
  };
  const put = async (output: PutToolOutput | PutToolOutputStream): Promise<ToolOutputRef> => {
    ensureOpen('put');
    validatePut(output);
    const pieces: string[] = [];
    const digest = await writePieces({ body: output.body, signal: 'signal' in output ? output.signal : undefined, write: (piece) => void pieces.push(piece.text) });
    ensureOpen('put');
    const body = typeof output.body === 'string' ? output.body : pieces.join('');
    const ref: ToolOutputRef = { id: newToolOutputId(), ...digest.measure };
    outputs.set(ref.id, { ref, contextId: output.contextId, toolCallId: output.toolCallId, toolName: output.toolName, body, sha256: digest.sha256, createdAt: new Date().toISOString() });
    return ref;
  };
  return {
    put,
    putStream: put,
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      ensureOpen('get');
      const stored = outputs.get(refId);
      if (stored === undefined) return undefined;
      const { sha256, ...fields } = stored;
      if ((await writePieces({ body: stored.body, write: () => undefined })).sha256 !== sha256) {
        throw new StoreAccessError({ code: 'STORE_CORRUPTED', location: MEMORY_LOCATION, message: `memory store: the body of ${refId} no longer matches its checksum` });
      }
      return { ...fields, ref: { ...stored.ref } };
    },
    async list(contextId: string): Promise<StoredToolOutputEntry[]> {
      ensureOpen('list');
      const entries: StoredToolOutputEntry[] = [];
      // A Map iterates in insertion order: oldest first.
      for (const output of outputs.values()) if (output.contextId === contextId) entries.push({ refId: output.ref.id, toolCallId: output.toolCallId, toolName: output.toolName, createdAt: output.createdAt });
      return entries;
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
