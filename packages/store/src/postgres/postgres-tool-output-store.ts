import type { PutToolOutput, PutToolOutputStream, StoredToolOutput, StoredToolOutputEntry, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { TOOL_OUTPUT_COLUMNS, toolOutputListSql, putToolOutputRow, storedToolOutputEntryFromRow, storedToolOutputFromRow, type ToolOutputListRow, type ToolOutputRow, type ToolOutputRowWriter } from '../tool-output-row.js';
import { PostgresConnection, type PostgresMigration, type PostgresStoreOptions } from './postgres-connection.js';

/** Bodies are `bytea` (PostgreSQL `text` cannot hold NUL), with their SHA-256. */
export const POSTGRES_TOOL_OUTPUT_MIGRATIONS: readonly PostgresMigration[] = Object.freeze([
  {
    version: 1,
    name: 'create strata_tool_outputs',
    sql: (schema: string) => `CREATE TABLE ${schema}.strata_tool_outputs (
      id text PRIMARY KEY,
      context_id text NOT NULL,
      tool_call_id text NOT NULL,
      tool_name text NOT NULL,
      encoding text NOT NULL,
      body bytea NOT NULL,
      sha256 text NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX strata_tool_outputs_context ON ${schema}.strata_tool_outputs (context_id, tool_call_id);`,
  },
  {
    version: 2,
    name: 'create strata_tool_output_pieces',
    sql: (schema: string) => `CREATE TABLE ${schema}.strata_tool_output_pieces (
      output_id text NOT NULL,
      seq integer NOT NULL,
      encoding text NOT NULL,
      bytes bytea NOT NULL,
      PRIMARY KEY (output_id, seq)
    );`,
  },
]);

/** Piece rows fetched per query when reading a body: at most 8 × 768 KiB. */
const PIECES_PER_READ = 8;

/**
 * Tool outputs in PostgreSQL, for many workers sharing one store. Tables are
 * created on first use; the constructor does not connect. A body longer than
 * one piece is written piece by piece as it streams (no connection is held
 * while waiting for the next chunk), its row last.
 */
export function createPostgresToolOutputStore(options: PostgresStoreOptions): ToolOutputStore {
  const connection = new PostgresConnection({ ...options, component: 'tool-outputs', migrations: POSTGRES_TOOL_OUTPUT_MIGRATIONS });
  const table = connection.table('strata_tool_outputs');
  const pieces = connection.table('strata_tool_output_pieces');
  const store = {
    location: connection.location,
    label: 'PostgreSQL store',
    async *pieces(id: string): AsyncGenerator<{ encoding: string; bytes: Buffer }> {
      for (let seq = 0; ; seq += PIECES_PER_READ) {
        const rows = await connection.use('get', async (client) =>
          (await client.query<{ encoding: string; bytes: Buffer }>(`SELECT encoding, bytes FROM ${pieces} WHERE output_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`, [id, seq, seq + PIECES_PER_READ])).rows,
        );
        yield* rows;
        // A short batch is the end (or a gap, which then fails the checksum).
        if (rows.length < PIECES_PER_READ) return;
      }
    },
  };
  const writer: ToolOutputRowWriter = {
    insertPiece: async (id, index, piece) => {
      await connection.use('put', (client) => client.query(`INSERT INTO ${pieces} (output_id, seq, encoding, bytes) VALUES ($1, $2, $3, $4)`, [id, index, piece.encoding, piece.bytes]));
    },
    insertRow: async (values) => {
      await connection.use('put', (client) => client.query(`INSERT INTO ${table} (${TOOL_OUTPUT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, values));
    },
    deletePieces: async (id) => {
      await connection.use('put', (client) => client.query(`DELETE FROM ${pieces} WHERE output_id = $1`, [id]));
    },
    storedDigest: async (id, contextId) =>
      (await connection.use('put', (client) => client.query<{ sha256: string }>(`SELECT sha256 FROM ${table} WHERE id = $1 AND context_id = $2`, [id, contextId]))).rows[0]?.sha256,
  };
  const put = async (output: PutToolOutput | PutToolOutputStream): Promise<ToolOutputRef> => {
    connection.ensureOpen('put'); // before reading a stream
    return putToolOutputRow(output, writer, options.newToolOutputId);
  };
  return {
    put,
    putStream: put,
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      const row = await connection.use('get', async (client) => (await client.query<ToolOutputRow>(`SELECT * FROM ${table} WHERE id = $1`, [refId])).rows[0]);
      return row === undefined ? undefined : storedToolOutputFromRow(row, store);
    },
    async list(contextId: string): Promise<StoredToolOutputEntry[]> {
      const rows = await connection.use('list', async (client) => (await client.query<ToolOutputListRow>(toolOutputListSql(table, '$1'), [contextId])).rows);
      return rows.map(storedToolOutputEntryFromRow);
    },
    async close(): Promise<void> {
      await connection.close();
    },
  };
}
