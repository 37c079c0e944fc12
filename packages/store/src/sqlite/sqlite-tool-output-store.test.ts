import Database from 'better-sqlite3';
import { join } from 'node:path';
import { toolOutputStoreContract } from '../testing/tool-output-store-contract.js';
import { openSqliteToolOutputStore } from './sqlite-tool-output-store.js';
import { temporaryDirectory } from '../testing/temporary-directory.js';

const path = join(temporaryDirectory('strata-sqlite-outputs-'), 'strata.db');
toolOutputStoreContract({
  name: 'SQLite ToolOutputStore',
  open: () => openSqliteToolOutputStore({ path }),
  childOpen: `store.openSqliteToolOutputStore({ path: ${JSON.stringify(path)} })`,
  pieces: {
    count: async () => withDatabase((database) => database.prepare<[], { n: number }>('SELECT count(*) AS n FROM strata_tool_output_pieces').get()!.n),
    damage: async (id, seq) =>
      withDatabase((database) => void database.prepare('UPDATE strata_tool_output_pieces SET bytes = ? WHERE output_id = ? AND seq = ?').run(Buffer.from('tampered'), id, seq)),
  },
});

function withDatabase<T>(work: (database: Database.Database) => T): T {
  const database = new Database(path);
  try {
    return work(database);
  } finally {
    database.close();
  }
}
