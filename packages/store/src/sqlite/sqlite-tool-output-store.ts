import type { PutToolOutput, PutToolOutputStream, StoredToolOutput, StoredToolOutputEntry, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { TOOL_OUTPUT_COLUMNS, toolOutputListSql, putToolOutputRow, storedToolOutputEntryFromRow, storedToolOutputFromRow, type ToolOutputListRow, type ToolOutputRow, type ToolOutputRowWriter } from '../tool-output-row.js';
import { SqliteConnection } from './sqlite-connection.js';
import type { SqliteMigration, SqliteStoreOptions } from './sqlite-database.js';

export const SQLITE_TOOL_OUTPUT_MIGRATIONS: readonly SqliteMigration[] = Object.freeze([
  {
    version: 1,
    name: 'create strata_tool_outputs',
    sql: `CREATE TABLE strata_tool_outputs (
      id TEXT PRIMARY KEY,
      context_id TEXT NOT NULL,
      tool_call_id TEXT NOT NULL,
      tool_name TEXT NOT NULL,
      encoding TEXT NOT NULL,
      body BLOB NOT NULL,
      sha256 TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX strata_tool_outputs_context ON strata_tool_outputs (context_id, tool_call_id);`,
  },
  {
    version: 2,
    name: 'create strata_tool_output_pieces',
    sql: `CREATE TABLE strata_tool_output_pieces (
      output_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      encoding TEXT NOT NULL,
      bytes BLOB NOT NULL,
      PRIMARY KEY (output_id, seq)
    );`,
  },
]);

/**
 * Tool outputs in a SQLite file. Bodies are kept as bytes with their SHA-256,
 * checked on every read, so damage to the file surfaces as `STORE_CORRUPTED`
 * instead of a wrong body. A body longer than one piece is written piece by
 * piece as it streams, its row last. Several stores (in this process or
 * others) may share one file.
 */
export function openSqliteToolOutputStore(options: SqliteStoreOptions): ToolOutputStore {
  const connection = new SqliteConnection({ ...options, component: 'tool-outputs', migrations: SQLITE_TOOL_OUTPUT_MIGRATIONS });
  const store = {
    location: connection.path,
    label: 'SQLite store',
    pieces: (id: string) => readPieceRows(connection, id),
  };
  const writer: ToolOutputRowWriter = {
    insertPiece: (id, index, piece) =>
      void connection.use('put', (database) =>
        database.prepare('INSERT INTO strata_tool_output_pieces (output_id, seq, encoding, bytes) VALUES (?, ?, ?, ?)').run(id, index, piece.encoding, piece.bytes),
      ),
    insertRow: (values) => void connection.use('put', (database) => database.prepare(`INSERT INTO strata_tool_outputs (${TOOL_OUTPUT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(...values)),
    deletePieces: (id) => void connection.use('put', (database) => database.prepare('DELETE FROM strata_tool_output_pieces WHERE output_id = ?').run(id)),
    storedDigest: (id, contextId) =>
      connection.use('put', (database) => database.prepare<[string, string], string>('SELECT sha256 FROM strata_tool_outputs WHERE id = ? AND context_id = ?').pluck().get(id, contextId)),
  };
  const put = async (output: PutToolOutput | PutToolOutputStream): Promise<ToolOutputRef> => {
    connection.ensureOpen('put'); // before reading a stream
    return putToolOutputRow(output, writer, options.newToolOutputId);
  };
  return {
    put,
    putStream: put,
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      const row = connection.use('get', (database) => database.prepare<[string], ToolOutputRow>('SELECT * FROM strata_tool_outputs WHERE id = ?').get(refId));
      return row === undefined ? undefined : storedToolOutputFromRow(row, store);
    },
    async list(contextId: string): Promise<StoredToolOutputEntry[]> {
      const rows = connection.use('list', (database) => database.prepare<[string], ToolOutputListRow>(toolOutputListSql('strata_tool_outputs', '?')).all(contextId));
      return rows.map(storedToolOutputEntryFromRow);
    },
    async close(): Promise<void> {
      connection.close();
    },
  };
}

/**
 * One piece row per statement, in order, until the first missing one (a
 * gap then fails the checksum). Not `iterate`: an open iterator would keep
 * the connection busy while the reader awaits.
 */
function* readPieceRows(connection: SqliteConnection, id: string): Generator<{ encoding: string; bytes: Buffer }> {
  for (let seq = 0; ; seq += 1) {
    const piece = connection.use('get', (database) =>
      database.prepare<[string, number], { encoding: string; bytes: Buffer }>('SELECT encoding, bytes FROM strata_tool_output_pieces WHERE output_id = ? AND seq = ?').get(id, seq),
    );
    if (piece === undefined) return;
    yield piece;
  }
}
