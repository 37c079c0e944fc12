import { createHash } from 'node:crypto';
import type { PutToolOutput, PutToolOutputStream, StoredToolOutput, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { newToolOutputId, validatePut } from '../tool-output-body.js';
import { encodePiece, writePieces } from '../tool-output-pieces.js';

export const MEMORY_LOCATION = 'memory:';

interface MemoryOutput extends Omit<StoredToolOutput, 'body'> {
  /** The body's pieces as written (their text), joined on read. */
  readonly pieces: readonly string[];
  readonly sha256: string;
}

/**
 * Keeps bodies in this process only; for tests and throwaway runs. Bodies go
 * through the same pieces and SHA-256 as the SQL stores (checked on read by
 * encoding each piece again), so a streamed body is never gathered twice.
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
    const ref: ToolOutputRef = { id: newToolOutputId(), ...digest.measure };
    outputs.set(ref.id, { ref, contextId: output.contextId, toolCallId: output.toolCallId, toolName: output.toolName, pieces, sha256: digest.sha256, createdAt: new Date().toISOString() });
    return ref;
  };
  return {
    put,
    putStream: put,
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      ensureOpen('get');
      const stored = outputs.get(refId);
      if (stored === undefined) return undefined;
      const { pieces, sha256, ...fields } = stored;
      const hash = createHash('sha256');
      for (const piece of pieces) hash.update(encodePiece(piece).bytes);
      if (hash.digest('hex') !== sha256) {
        throw new StoreAccessError({ code: 'STORE_CORRUPTED', location: MEMORY_LOCATION, message: `memory store: the body of ${refId} no longer matches its checksum` });
      }
      return { ...fields, ref: { ...stored.ref }, body: pieces.join('') };
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
