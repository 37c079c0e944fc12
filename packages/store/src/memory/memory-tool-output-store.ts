import type { PutToolOutput, PutToolOutputStream, StoredToolOutput, StoredToolOutputEntry, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { StoreInputError } from '../errors/store-input-error.js';
import { isToolOutputId, newToolOutputId, validatePut, type ToolOutputIdMaker } from '../tool-output-body.js';
import { writePieces } from '../tool-output-pieces.js';

export const MEMORY_LOCATION = 'memory:';

interface MemoryOutput extends StoredToolOutput {
  /** SHA-256 of the body's pieces as `writePieces` encodes them. */
  readonly sha256: string;
}

export interface MemoryToolOutputStoreOptions {
  /**
   * Makes each new reference id (default `newToolOutputId`): a replay passes
   * `toolOutputIdSequence(seed)` so every run gets the same ids. An id that
   * is not in the store's shape, or that the store already holds, fails the
   * put with a StoreInputError and stores nothing.
   */
  readonly newId?: ToolOutputIdMaker;
}

/**
 * Keeps bodies in this process only; for tests, replays and throwaway runs. Bodies go
 * through the same pieces and SHA-256 as the SQL stores (checked on read by
 * encoding the pieces again); each is kept as one string, so a read makes
 * no copy (a streamed body is joined once, when its last chunk arrives).
 */
export function createMemoryToolOutputStore(options: MemoryToolOutputStoreOptions = {}): ToolOutputStore {
  const newId: ToolOutputIdMaker = options?.newId ?? (() => newToolOutputId());
  if (typeof newId !== 'function') throw new StoreInputError({ code: 'STORE_INVALID_OPTION', culprit: 'newId', message: `createMemoryToolOutputStore newId must be a function, got ${typeof newId}` });
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
    const id: unknown = newId(output);
    // An id made from the call (`derivedToolOutputId`) whose same body is stored already: the put was made before.
    const earlier = typeof id === 'string' ? outputs.get(id) : undefined;
    if (earlier !== undefined && earlier.contextId === output.contextId && earlier.sha256 === digest.sha256) return earlier.ref;
    if (typeof id !== 'string' || !isToolOutputId(id) || outputs.has(id)) {
      throw new StoreInputError({ code: 'STORE_INVALID_ID', culprit: 'newId', message: `memory store: newId gave ${JSON.stringify(id)}, ${typeof id === 'string' && isToolOutputId(id) ? 'an id the store already holds' : 'not an id of the form out_ and 26 base-32 characters'}` });
    }
    const ref: ToolOutputRef = { id, ...digest.measure };
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
