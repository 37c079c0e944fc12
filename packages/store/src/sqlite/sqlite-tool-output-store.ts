import type { PutToolOutput, StoredToolOutput, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { decodeBody, encodeBody, measureToolOutput, newToolOutputId, validatePut } from '../tool-output-body.js';
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
]);

interface Row {
  id: string;
  context_id: string;
  tool_call_id: string;
  tool_name: string;
  encoding: string;
  body: Buffer;
  sha256: string;
  created_at: string;
}

/**
 * Tool outputs in a SQLite file. Bodies are kept as bytes with their SHA-256,
 * checked on every read, so damage to the file surfaces as `STORE_CORRUPTED`
 * instead of a wrong body. Several stores (in this process or others) may
 * share one file.
 */
export function openSqliteToolOutputStore(options: SqliteStoreOptions): ToolOutputStore {
  const connection = new SqliteConnection({ ...options, component: 'tool-outputs', migrations: SQLITE_TOOL_OUTPUT_MIGRATIONS });
  return {
    async put(output: PutToolOutput): Promise<ToolOutputRef> {
      return connection.use('put', (database) => {
        validatePut(output);
        const encoded = encodeBody(output.body);
        const ref: ToolOutputRef = { id: newToolOutputId(), ...measureToolOutput(output.body) };
        database
          .prepare(
            'INSERT INTO strata_tool_outputs (id, context_id, tool_call_id, tool_name, encoding, body, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(ref.id, output.contextId, output.toolCallId, output.toolName, encoded.encoding, encoded.bytes, encoded.sha256, new Date().toISOString());
        return ref;
      });
    },
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      return connection.use('get', (database) => {
        const row = database.prepare<[string], Row>('SELECT * FROM strata_tool_outputs WHERE id = ?').get(refId);
        if (row === undefined) return undefined;
        const body = decodeBody({ encoding: row.encoding, bytes: row.body, sha256: row.sha256 });
        if (body === undefined) {
          throw new StoreAccessError({
            code: 'STORE_CORRUPTED',
            location: connection.path,
            message: `SQLite store ${connection.path}: the body of ${refId} no longer matches its checksum; the file is damaged`,
          });
        }
        return {
          ref: { id: row.id, ...measureToolOutput(body) },
          contextId: row.context_id,
          toolCallId: row.tool_call_id,
          toolName: row.tool_name,
          body,
          createdAt: row.created_at,
        };
      });
    },
    async close(): Promise<void> {
      connection.close();
    },
  };
}
