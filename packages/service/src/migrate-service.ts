import { DBOS } from '@dbos-inc/dbos-sdk';
import { createPostgresStores } from '@strata/store';
import pg from 'pg';
import { RunLog } from './run-log.js';
import { resolveServiceDatabase, type ServiceDatabase } from './service-database.js';

/**
 * Creates every table the service needs: DBOS's system tables, the session
 * and tool-output stores, the run events and traces. Run once per deployment
 * (and per upgrade) by a role that may create them (`strata migrate`);
 * workers then run with `runMigrations: false` and need only table rights.
 * `applicationRole` is granted access to DBOS's schema.
 */
export async function migrateService(options: { readonly database: ServiceDatabase; readonly applicationRole?: string }): Promise<void> {
  const database = resolveServiceDatabase(options.database);
  await DBOS.migrate(database.url, { schemaName: database.systemSchema, applicationRole: options.applicationRole });
  const stores = createPostgresStores({ connectionString: database.url, schema: database.storeSchema });
  try {
    // The stores create their tables on first use: one read each does it.
    await stores.sessions.load('strata-migrate');
    await stores.toolOutputs.get('strata-migrate');
  } finally {
    await stores.close();
  }
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    await new RunLog({ pool, schema: database.serviceSchema }).migrate();
  } finally {
    await pool.end();
  }
}
