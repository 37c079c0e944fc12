import type { PutToolOutput, StoredToolOutput, ToolOutputRef } from '@strata/context';
import { StoreAccessError } from './errors/store-access-error.js';
import { decodeBody, encodeBody, measureToolOutput, newToolOutputId, validatePut } from './tool-output-body.js';

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

/** The columns `put` writes, in the order of `toolOutputRowValues`. */
export const TOOL_OUTPUT_COLUMNS = 'id, context_id, tool_call_id, tool_name, encoding, body, sha256, created_at';

/**
 * Checks what `put` receives and returns its new reference with the values
 * to insert, in the order of `TOOL_OUTPUT_COLUMNS`.
 */
export function toolOutputRowValues(output: PutToolOutput): { ref: ToolOutputRef; values: [string, string, string, string, string, Buffer, string, string] } {
  validatePut(output);
  const encoded = encodeBody(output.body);
  const ref: ToolOutputRef = { id: newToolOutputId(), ...measureToolOutput(output.body) };
  return {
    ref,
    values: [ref.id, output.contextId, output.toolCallId, output.toolName, encoded.encoding, encoded.bytes, encoded.sha256, new Date().toISOString()],
  };
}

/**
 * The port's record of a row. A body that no longer matches its checksum is
 * `STORE_CORRUPTED`, naming the store, never a wrong body.
 */
export function storedToolOutputFromRow(row: ToolOutputRow, store: { readonly location: string; readonly label: string }): StoredToolOutput {
  const body = decodeBody({ encoding: row.encoding, bytes: row.body, sha256: row.sha256 });
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
