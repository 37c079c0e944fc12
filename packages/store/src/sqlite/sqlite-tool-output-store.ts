import type { PutToolOutput, StoredToolOutput, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { TOOL_OUTPUT_COLUMNS, storedToolOutputFromRow, toolOutputRowValues, type ToolOutputRow } from '../tool-output-row.js';
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

/**
 * Tool outputs in a SQLite file. Bodies are kept as bytes with their SHA-256,
 * checked on every read, so damage to the file surfaces as `STORE_CORRUPTED`
 * instead of a wrong body. Several stores (in this process or others) may
 * share one file.
 */
export function openSqliteToolOutputStore(options: SqliteStoreOptions): ToolOutputStore {
  const connection = new SqliteConnection({ ...options, component: 'tool-outputs', migrations: SQLITE_TOOL_OUTPUT_MIGRATIONS });
  const store = { location: connection.path, label: 'SQLite store' };
  return {
    async put(output: PutToolOutput): Promise<ToolOutputRef> {
      return connection.use('put', (database) => {
        const { ref, values } = toolOutputRowValues(output);
        database.prepare(`INSERT INTO strata_tool_outputs (${TOOL_OUTPUT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(...values);
        return ref;
      });
    },
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      return connection.use('get', (database) => {
        const row = database.prepare<[string], ToolOutputRow>('SELECT * FROM strata_tool_outputs WHERE id = ?').get(refId);
        return row === undefined ? undefined : storedToolOutputFromRow(row, store);
      });
    },
    async close(): Promise<void> {
      connection.close();
    },
  };
}
