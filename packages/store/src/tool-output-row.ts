import type { PutToolOutput, PutToolOutputStream, StoredToolOutput, StoredToolOutputEntry, ToolOutputRef } from '@strata/context';
import { StoreAccessError } from './errors/store-access-error.js';
import { StoreInputError } from './errors/store-input-error.js';
import { decodeBody, measureToolOutput, newToolOutputId, validatePut, type ToolOutputIdMaker } from './tool-output-body.js';
import { readPieces, writePieces, type BodyDigest, type EncodedPiece } from './tool-output-pieces.js';

/**
 * A `strata_tool_outputs` row as both SQL backends return it. `created_at`
 * is TEXT in SQLite and `timestamptz` (a Date) in PostgreSQL.
 */
export interface ToolOutputRow {
  readonly id: string;
  readonly context_id: string;
  readonly tool_call_id: string;
  readonly tool_name: string;
  readonly encoding: string;
  readonly body: Buffer;
  readonly sha256: string;
  readonly created_at: string | Date;
}

/** The columns `put` writes, in the order of `ToolOutputRowValues`. */
export const TOOL_OUTPUT_COLUMNS = 'id, context_id, tool_call_id, tool_name, encoding, body, sha256, created_at';

/** A context's outputs without their bodies, oldest first (ids sort by creation time). `placeholder`: `?` or `$1`. */
export function toolOutputListSql(table: string, placeholder: string): string {
  return `SELECT id, tool_call_id, tool_name, created_at FROM ${table} WHERE context_id = ${placeholder} ORDER BY created_at, id`;
}

export type ToolOutputListRow = Pick<ToolOutputRow, 'id' | 'tool_call_id' | 'tool_name' | 'created_at'>;

export function storedToolOutputEntryFromRow(row: ToolOutputListRow): StoredToolOutputEntry {
  return { refId: row.id, toolCallId: row.tool_call_id, toolName: row.tool_name, createdAt: typeof row.created_at === 'string' ? row.created_at : row.created_at.toISOString() };
}

export type ToolOutputRowValues = [string, string, string, string, string, Buffer, string, string];

/**
 * `encoding` of a row whose body is in `strata_tool_output_pieces` (its
 * `body` column is empty): the row is written after its last piece, so a
 * reader never sees a body in part.
 */
export const PIECES_ENCODING = 'pieces';

/** What a SQL backend does for `putToolOutputRow`; each call is one statement. */
export interface ToolOutputRowWriter {
  insertPiece(id: string, index: number, piece: EncodedPiece): Promise<void> | void;
  insertRow(values: ToolOutputRowValues): Promise<void> | void;
  /** Removes the pieces of a put that failed before its row was written. */
  deletePieces(id: string): Promise<void> | void;
  /** The SHA-256 of the body stored under `id` in `contextId`, if any: a repeated put of the same body is no new row. */
  storedDigest(id: string, contextId: string): Promise<string | undefined> | string | undefined;
}

/**
 * Stores one body (whole or streamed) as a new row and returns its
 * reference. A body of one piece goes inline in the row, as rows were
 * always written; a longer one goes piece by piece to the pieces table
 * first (so memory holds one piece at a time), then the row. A put that
 * fails or is aborted part way removes its pieces and rethrows.
 */
export async function putToolOutputRow(output: PutToolOutput | PutToolOutputStream, writer: ToolOutputRowWriter, newId?: ToolOutputIdMaker): Promise<ToolOutputRef> {
  validatePut(output);
  const id = newId ? newId(output) : newToolOutputId();
  const signal = 'signal' in output ? output.signal : undefined;
  // Only an id made from the call (`derivedToolOutputId`) can come again: the put was made before (a step run again).
  // Its body is read to its digest and nothing is written, so the stored output's own pieces stay as they are.
  const earlier = newId ? await writer.storedDigest(id, output.contextId) : undefined;
  if (earlier !== undefined) {
    const digest = await writePieces({ body: output.body, signal, write: () => undefined });
    return sameCallOutput(id, output, digest, earlier);
  }
  let first: EncodedPiece | undefined;
  let pieces = 0;
  /** Whether this put wrote the id's first piece: the pieces are its own to remove (a put that lost the id to another wrote none). */
  let ownPieces = false;
  /**
   * Why a put with an id made from the call could not write: most often another put of the same call (a retry while
   * the first was in flight, another worker) wrote the id first. The body is read on to its digest, then compared.
   */
  let lost: { readonly error: unknown } | undefined;
  try {
    const digest = await writePieces({
      body: output.body,
      signal,
      write: async (piece, index) => {
        pieces = index + 1;
        if (lost !== undefined) return;
        if (index === 0) {
          first = piece;
          return;
        }
        try {
          if (index === 1) {
            await writer.insertPiece(id, 0, first!);
            ownPieces = true;
          }
          await writer.insertPiece(id, index, piece);
        } catch (error) {
          if (!newId || ownPieces) throw error;
          lost = { error };
        }
      },
    });
    if (lost === undefined) {
      const inline = pieces <= 1;
      try {
        await writer.insertRow([
          id,
          output.contextId,
          output.toolCallId,
          output.toolName,
          inline ? (first?.encoding ?? 'utf8') : PIECES_ENCODING,
          inline ? (first?.bytes ?? Buffer.alloc(0)) : Buffer.alloc(0),
          digest.sha256,
          new Date().toISOString(),
        ]);
        return { id, ...digest.measure };
      } catch (error) {
        if (!newId) throw error;
        lost = { error };
      }
    }
    // The row another put of the call wrote, if it did: the same body is that output. None: this put's own failure.
    const stored = await writer.storedDigest(id, output.contextId);
    if (stored === undefined) throw lost.error;
    if (ownPieces) await removePieces(writer, id);
    return sameCallOutput(id, output, digest, stored);
  } catch (error) {
    if (ownPieces) await removePieces(writer, id);
    throw error;
  }
}

/** The pieces of a put whose row was not written (best effort: an unreadable piece without a row is never read). */
async function removePieces(writer: ToolOutputRowWriter, id: string): Promise<void> {
  await Promise.resolve(writer.deletePieces(id)).catch(() => undefined);
}

/** A put under an id made from its call that another put of the call holds: the same output when the bodies match; refused otherwise. */
function sameCallOutput(id: string, output: PutToolOutput | PutToolOutputStream, digest: BodyDigest, stored: string): ToolOutputRef {
  if (digest.sha256 === stored) return { id, ...digest.measure };
  throw new StoreInputError({ code: 'STORE_INVALID_ID', culprit: 'newId', message: `tool-output id ${id} is held by another body of context "${output.contextId}" (call "${output.toolCallId}" repeated with other output)` });
}

/**
 * The port's record of a row. A body that no longer matches its checksum
 * (a damaged or missing piece included) is `STORE_CORRUPTED`, naming the
 * store, never a wrong body.
 */
export async function storedToolOutputFromRow(
  row: ToolOutputRow,
  store: {
    readonly location: string;
    readonly label: string;
    /** The row's pieces in order, for a row whose encoding is `PIECES_ENCODING`. */
    readonly pieces: (id: string) => AsyncIterable<{ readonly encoding: string; readonly bytes: Uint8Array }> | Iterable<{ readonly encoding: string; readonly bytes: Uint8Array }>;
  },
): Promise<StoredToolOutput> {
  const body =
    row.encoding === PIECES_ENCODING
      ? await readPieces(store.pieces(row.id), row.sha256)
      : decodeBody({ encoding: row.encoding, bytes: row.body, sha256: row.sha256 });
  if (body === undefined) {
    throw new StoreAccessError({
      code: 'STORE_CORRUPTED',
      location: store.location,
      message: `${store.label} ${store.location}: the body of ${row.id} no longer matches its checksum; the store is damaged`,
    });
  }
  return {
    ref: { id: row.id, ...measureToolOutput(body) },
    contextId: row.context_id,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    body,
    createdAt: typeof row.created_at === 'string' ? row.created_at : row.created_at.toISOString(),
  };
}
