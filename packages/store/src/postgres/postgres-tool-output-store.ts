import type { PutToolOutput, StoredToolOutput, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { TOOL_OUTPUT_COLUMNS, storedToolOutputFromRow, toolOutputRowValues, type ToolOutputRow } from '../tool-output-row.js';
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
]);

/**
 * Tool outputs in PostgreSQL, for many workers sharing one store. Tables are
 * created on first use; the constructor does not connect.
 */
export function createPostgresToolOutputStore(options: PostgresStoreOptions): ToolOutputStore {
  const connection = new PostgresConnection({ ...options, component: 'tool-outputs', migrations: POSTGRES_TOOL_OUTPUT_MIGRATIONS });
  const table = connection.table('strata_tool_outputs');
  const store = { location: connection.location, label: 'PostgreSQL store' };
  return {
    async put(output: PutToolOutput): Promise<ToolOutputRef> {
      const { ref, values } = toolOutputRowValues(output);
      await connection.use('put', (client) => client.query(`INSERT INTO ${table} (${TOOL_OUTPUT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, values));
      return ref;
    },
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      const row = await connection.use('get', async (client) => (await client.query<ToolOutputRow>(`SELECT * FROM ${table} WHERE id = $1`, [refId])).rows[0]);
      return row === undefined ? undefined : storedToolOutputFromRow(row, store);
    },
    async close(): Promise<void> {
      await connection.close();
    },
  };
}
