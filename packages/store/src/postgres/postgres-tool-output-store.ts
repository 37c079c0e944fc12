import type { PutToolOutput, StoredToolOutput, ToolOutputRef, ToolOutputStore } from '@strata/context';
import { StoreAccessError } from '../errors/store-access-error.js';
import { decodeBody, encodeBody, measureToolOutput, newToolOutputId, validatePut } from '../tool-output-body.js';
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

interface Row {
  id: string;
  context_id: string;
  tool_call_id: string;
  tool_name: string;
  encoding: string;
  body: Buffer;
  sha256: string;
  created_at: Date;
}

/**
 * Tool outputs in PostgreSQL, for many workers sharing one store. Tables are
 * created on first use; the constructor does not connect.
 */
export function createPostgresToolOutputStore(options: PostgresStoreOptions): ToolOutputStore {
  const connection = new PostgresConnection({ ...options, component: 'tool-outputs', migrations: POSTGRES_TOOL_OUTPUT_MIGRATIONS });
  const table = connection.table('strata_tool_outputs');
  return {
    async put(output: PutToolOutput): Promise<ToolOutputRef> {
      validatePut(output);
      const encoded = encodeBody(output.body);
      const ref: ToolOutputRef = { id: newToolOutputId(), ...measureToolOutput(output.body) };
      await connection.use('put', (client) =>
        client.query(
          `INSERT INTO ${table} (id, context_id, tool_call_id, tool_name, encoding, body, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [ref.id, output.contextId, output.toolCallId, output.toolName, encoded.encoding, encoded.bytes, encoded.sha256, new Date().toISOString()],
        ),
      );
      return ref;
    },
    async get(refId: string): Promise<StoredToolOutput | undefined> {
      const row = await connection.use('get', async (client) => (await client.query<Row>(`SELECT * FROM ${table} WHERE id = $1`, [refId])).rows[0]);
      if (row === undefined) return undefined;
      const body = decodeBody({ encoding: row.encoding, bytes: row.body, sha256: row.sha256 });
      if (body === undefined) {
        throw new StoreAccessError({
          code: 'STORE_CORRUPTED',
          location: connection.location,
          message: `PostgreSQL store ${connection.location}: the body of ${refId} no longer matches its checksum`,
        });
      }
      return {
        ref: { id: row.id, ...measureToolOutput(body) },
        contextId: row.context_id,
        toolCallId: row.tool_call_id,
        toolName: row.tool_name,
        body,
        createdAt: row.created_at.toISOString(),
      };
    },
    async close(): Promise<void> {
      await connection.close();
    },
  };
}
